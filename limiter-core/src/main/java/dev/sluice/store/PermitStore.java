package dev.sluice.store;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * Concurrency permits shared by every node, as leases that expire: the permits of a node that dies
 * without releasing them come back after the lease time.
 *
 * <p>Callers that wait for a permit stand in one line across the cluster: each waiting caller holds
 * a <em>ticket</em> (a string unique in the cluster) and asks again with it until it is its turn, so
 * a busy node cannot keep the permits it frees for its own waiters and starve the others. A store
 * tells the waiting nodes when a permit may have come free ({@link #watch}), so they need not poll
 * fast. The methods with a ticket have defaults for a store without a line: then a ticket changes
 * nothing and waiters rely on polling.
 */
public interface PermitStore extends AutoCloseable {

  /**
   * Takes one of {@code maxPermits} permits of {@code limiter} if one is free and nobody waits in
   * the line. The store renews the lease while it is held. Never completes exceptionally: when the
   * store fails, the implementation degrades as its {@link FailurePolicy} says.
   */
  CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime);

  /**
   * Takes a permit for the caller holding {@code ticket} if one is free and no ticket ahead of it
   * in the cluster-wide line could take it; otherwise puts the ticket in the line (or keeps it
   * there, refreshing it) and answers empty. A ticket that is not asked about again for a few
   * seconds leaves the line by itself (its node died). Never completes exceptionally.
   */
  default CompletionStage<Optional<PermitLease>> tryAcquire(
      String limiter, int maxPermits, Duration leaseTime, String ticket) {
    return tryAcquire(limiter, maxPermits, leaseTime);
  }

  /** The caller holding {@code ticket} stopped waiting (timeout, cancel); best effort, idempotent. */
  default void leave(String limiter, String ticket) {}

  /**
   * Calls {@code listener} whenever a permit of {@code limiter} may have come free on any node
   * (released, expired, a waiter left the line). The listener runs on the store's own thread: it
   * must be quick and must not block. Without support, nothing is ever called.
   */
  default Watch watch(String limiter, Runnable listener) {
    return () -> {};
  }

  /**
   * How many leases of {@code limiter} are held across every node right now, or -1 when unknown
   * (the store is down or cannot tell). Never completes exceptionally.
   */
  default CompletionStage<Integer> held(String limiter) {
    return CompletableFuture.completedFuture(-1);
  }

  @Override
  void close();

  /** A held global permit. */
  interface PermitLease {
    /** Gives the permit back; idempotent. */
    CompletionStage<Void> release();
  }

  /** A registration of {@link #watch}; closing it stops the calls. */
  interface Watch extends AutoCloseable {
    @Override
    void close();
  }
}
