package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Permit;
import dev.sluice.store.PermitStore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A permit of a {@link GlobalLimiter}: this node's local permit plus one cluster lease, released
 * together and once.
 */
final class LeasedPermit implements Permit {

  private final GlobalLimiter limiter;
  private final Permit local;
  private final PermitStore.PermitLease lease;
  private final long admittedAtNanos;
  private final long queuedNanos;
  private final AtomicBoolean released = new AtomicBoolean();

  LeasedPermit(
      GlobalLimiter limiter,
      Permit local,
      PermitStore.PermitLease lease,
      long admittedAtNanos,
      long queuedNanos) {
    this.limiter = limiter;
    this.local = local;
    this.lease = lease;
    this.admittedAtNanos = admittedAtNanos;
    this.queuedNanos = queuedNanos;
  }

  @Override
  public void release() {
    if (released.compareAndSet(false, true)) {
      limiter.release(this);
    }
  }

  Permit local() {
    return local;
  }

  PermitStore.PermitLease lease() {
    return lease;
  }

  long admittedAtNanos() {
    return admittedAtNanos;
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public long queuedNanos() {
    return queuedNanos;
  }

  @Override
  public String toString() {
    return "Permit[" + limiter.name() + ", leased" + (isReleased() ? ", released]" : "]");
  }
}
