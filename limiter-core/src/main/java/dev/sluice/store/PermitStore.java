package dev.sluice.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

/**
 * Concurrency permits shared by every node, as leases that expire: the permits of a node that dies
 * without releasing them come back after the lease time.
 */
public interface PermitStore extends AutoCloseable {

  /**
   * Takes one of {@code maxPermits} permits of {@code limiter} if one is free. The store renews the
   * lease while it is held. Never completes exceptionally: when the store fails, the implementation
   * degrades as its {@link FailurePolicy} says.
   */
  CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime);

  @Override
  void close();

  /** A held global permit. */
  interface PermitLease {
    /** Gives the permit back; idempotent. */
    CompletionStage<Void> release();
  }
}
