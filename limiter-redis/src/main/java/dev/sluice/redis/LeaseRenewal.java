package dev.sluice.redis;

import dev.sluice.time.Scheduler;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leases this node holds on one global limiter, renewed together: one {@code lease_renew.lua}
 * call every third of the lease time, whatever the number of leases, so short leases (a dead node's
 * permits back within seconds) cost Redis one script call per node and limiter per renewal instead
 * of one per lease. Nothing is sent while the node holds no lease on the limiter.
 *
 * <p>A renewal that finds some of its leases gone (they expired while this node was paused or cut
 * off from Redis for longer than the lease time, or Redis lost its state) writes them again whatever
 * the maximum, since their jobs still run, and logs a warning: the other nodes then count them, and
 * no new lease is granted until the leases held are back under the maximum.
 */
final class LeaseRenewal {

  private static final Logger LOG = LoggerFactory.getLogger(LeaseRenewal.class);

  private final RedisPermitStore store;
  private final String limiter;
  private final String[] keys;
  private final String channel;

  /**
   * Guards the leases held, the scheduled renewal, and the sending of every renewal, reclaim and
   * release of these leases: a renewal sent after a release's ZREM would write the lease again
   * until it expired; under the lock the release is always the last word. The sections only
   * copy a few ids and hand a command to Lettuce (no wait for an answer).
   */
  final Object lock = new Object();

  private final Set<RedisLease> held = new LinkedHashSet<>();
  private long leaseMicros;
  private long everyNanos;
  private Scheduler.Cancellable next;
  private boolean closed;

  LeaseRenewal(RedisPermitStore store, String limiter) {
    this.store = store;
    this.limiter = limiter;
    this.keys = new String[] {KeyLayout.permits(limiter)};
    this.channel = KeyLayout.permitsFreed(limiter);
  }

  /** Renews {@code lease} from now on, with the others; the latest lease time applies to all. */
  void add(RedisLease lease, long leaseNanos) {
    synchronized (lock) {
      if (closed) {
        return;
      }
      held.add(lease);
      leaseMicros = Math.max(1, leaseNanos / 1_000);
      everyNanos = Math.max(1, leaseNanos / 3);
      if (next == null) {
        next = store.scheduler().schedule(this::renew, everyNanos);
      }
    }
  }

  /** The lease was released (called under {@link #lock}). */
  void remove(RedisLease lease) {
    held.remove(lease);
  }

  /** The leases held now. */
  List<RedisLease> held() {
    synchronized (lock) {
      return new ArrayList<>(held);
    }
  }

  /** The jobs running on this node under leases taken in Redis (not adopted from the local share). */
  int running() {
    synchronized (lock) {
      int running = 0;
      for (RedisLease lease : held) {
        if (!lease.adopted()) {
          running++;
        }
      }
      return running;
    }
  }

  /** The store closes: no more renewals; the leases expire in Redis after their lease time. */
  void close() {
    synchronized (lock) {
      closed = true;
      held.forEach(RedisLease::stopRenewing);
      held.clear();
      if (next != null) {
        next.cancel();
        next = null;
      }
    }
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void renew() {
    CompletableFuture<Long> sent;
    int count;
    synchronized (lock) {
      if (closed || held.isEmpty()) {
        next = null; // the next lease taken starts renewing again
        return;
      }
      String[] args = new String[held.size() + 2];
      args[0] = Long.toString(leaseMicros);
      args[1] = channel;
      int i = 2;
      for (RedisLease lease : held) {
        args[i++] = lease.id();
      }
      count = held.size();
      RedisScriptingAsyncCommands<String, String> redis = store.link().commands();
      try {
        sent = redis == null
            ? CompletableFuture.failedFuture(new IllegalStateException("not connected"))
            : store.renewScript().runForLong(redis, keys, args);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
    }
    sent.orTimeout(store.timeoutNanos(), TimeUnit.NANOSECONDS).whenComplete((written, error) -> {
      if (error != null) {
        LOG.debug("renewing the {} leases on {} failed; trying again", count, limiter, error);
      } else if (written > 0) {
        LOG.warn(
            "{} of the {} leases this node holds on {} had expired (not renewed within the lease "
                + "time: this JVM paused, Redis out of reach, or Redis lost its state); their "
                + "jobs still run, so the leases are written again even above the global limit, "
                + "and no node gets a new lease on {} until the leases held are back under it",
            written,
            count,
            limiter,
            limiter);
      }
      synchronized (lock) {
        next = closed ? null : store.scheduler().schedule(this::renew, everyNanos);
      }
    });
  }
}
