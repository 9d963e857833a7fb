package dev.sluice.javalin;

import dev.sluice.concurrency.Permit;
import dev.sluice.store.PermitStore;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A permit of a limiter with global scope: this node's local permit plus a lease on one of the
 * cluster-wide permits in the shared store. Released once, both together.
 */
final class LeasedPermit implements Permit {

  private final Permit local;
  private final PermitStore.PermitLease lease;
  private final AtomicBoolean released = new AtomicBoolean();

  LeasedPermit(Permit local, PermitStore.PermitLease lease) {
    this.local = local;
    this.lease = lease;
  }

  @Override
  public void release() {
    if (released.compareAndSet(false, true)) {
      try {
        lease.release(); // asynchronous and idempotent; a lost release expires with the lease
      } finally {
        local.release();
      }
    }
  }

  @Override
  public boolean isReleased() {
    return released.get();
  }

  @Override
  public long queuedNanos() {
    return local.queuedNanos();
  }
}
