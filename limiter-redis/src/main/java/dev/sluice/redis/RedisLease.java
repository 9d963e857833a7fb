package dev.sluice.redis;

import dev.sluice.store.PermitStore.PermitLease;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One global permit held in Redis. Renewed with the node's other leases on the same limiter (see
 * {@link LeaseRenewal}) every third of its lease time while held, so a live holder never loses it
 * to expiry while a dead holder's permit comes back after at most one lease time.
 */
final class RedisLease implements PermitLease {

  private static final Logger LOG = LoggerFactory.getLogger(RedisLease.class);

  private final RedisPermitStore store;
  private final String[] keys;
  private final String channel;
  private final String id;
  private final String maxPermits;
  private final String leaseMicros;
  private final long leaseNanos;
  private final LeaseRenewal renewal;
  // guards released + the sending of a reclaim or release (the renewal's lock, shared by the
  // node's leases on this limiter: see LeaseRenewal)
  private final Object lock;
  private boolean released;
  /** Written for a permit granted on the local share, which counts it there already. */
  private volatile boolean adopted;

  RedisLease(
      RedisPermitStore store, String limiter, String id, int maxPermits, Duration leaseTime) {
    this.store = store;
    this.keys = new String[] {
      KeyLayout.permits(limiter), KeyLayout.permitLine(limiter), KeyLayout.permitLineTtl(limiter)
    };
    this.channel = KeyLayout.permitsFreed(limiter);
    this.id = id;
    this.maxPermits = Integer.toString(maxPermits);
    this.leaseMicros = Long.toString(leaseTime.toNanos() / 1_000);
    this.leaseNanos = leaseTime.toNanos();
    this.renewal = store.renewal(limiter);
    this.lock = renewal.lock;
  }

  /**
   * Sends the acquire for the caller holding {@code ticket} ({@code ""}: a caller that does not
   * wait): 1 when the permit is now held, 0 when not, -1 when {@code epoch} (null: unchecked) is
   * not Redis's (see {@code lease_acquire.lua}). {@code pending}: permits this node granted on its
   * local share and has not written to Redis yet; they count as held.
   */
  CompletableFuture<Long> claim(
      RedisScriptingAsyncCommands<String, String> redis, String ticket, int pending, String epoch) {
    String unwritten = Integer.toString(pending);
    if (epoch == null) {
      return store
          .acquireScript()
          .runForLong(
              redis,
              keys,
              maxPermits,
              leaseMicros,
              id,
              "0",
              ticket,
              store.ticketMicros(),
              channel,
              unwritten);
    }
    String[] checked = {keys[0], keys[1], keys[2], LossWatch.EPOCH_KEY};
    return store
        .acquireScript()
        .runForLong(
            redis,
            checked,
            maxPermits,
            leaseMicros,
            id,
            "0",
            ticket,
            store.ticketMicros(),
            channel,
            unwritten,
            epoch);
  }

  /** Writes the lease of a job that already runs (adopted from the local share), whatever the max. */
  CompletableFuture<Boolean> adopt(RedisScriptingAsyncCommands<String, String> redis) {
    return store
        .acquireScript()
        .runForLong(
            redis, keys, maxPermits, leaseMicros, id, "2", "", store.ticketMicros(), channel)
        .thenApply(held -> held == 1);
  }

  /**
   * Redis lost its state: the lease of this running job is written again at once (whatever the
   * maximum, as an adopted lease), so that the other nodes count it before they grant new ones.
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  void reclaim(RedisScriptingAsyncCommands<String, String> redis) {
    CompletableFuture<Long> sent;
    synchronized (lock) {
      if (released) {
        return; // a reclaim after the release's ZREM would hold the permit until it expired
      }
      try {
        sent = store
            .acquireScript()
            .runForLong(
                redis, keys, maxPermits, leaseMicros, id, "2", "", store.ticketMicros(), channel);
      } catch (RuntimeException e) {
        LOG.debug("reclaiming lease {} failed; its renewal takes it again", id, e);
        return;
      }
    }
    sent.orTimeout(store.timeoutNanos(), TimeUnit.NANOSECONDS).whenComplete((held, error) -> {
      if (error != null) {
        LOG.debug("reclaiming lease {} failed; its renewal takes it again", id, error);
      }
    });
  }

  /** Whether this lease's job was started on the local share (see {@link LocalPermits}). */
  boolean adopted() {
    return adopted;
  }

  void markAdopted() {
    adopted = true;
  }

  String id() {
    return id;
  }

  /** Renewed from now on, with this node's other leases on the limiter, until released. */
  void startRenewing() {
    synchronized (lock) {
      if (!released) {
        renewal.add(this, leaseNanos);
      }
    }
  }

  /** The store closes (called under the renewal's lock): the lease expires in Redis by itself. */
  void stopRenewing() {
    released = true;
  }

  @Override
  public CompletionStage<Void> release() {
    CompletableFuture<Long> sent;
    synchronized (lock) {
      if (released) {
        return CompletableFuture.completedFuture(null);
      }
      released = true;
      renewal.remove(this);
      RedisScriptingAsyncCommands<String, String> redis = store.link().commands();
      try {
        sent = redis == null
            ? CompletableFuture.failedFuture(new IllegalStateException("not connected"))
            : store.releaseScript().runForLong(redis, new String[] {keys[0]}, id, channel);
      } catch (RuntimeException e) {
        sent = CompletableFuture.failedFuture(e);
      }
    }
    return sent.orTimeout(store.timeoutNanos(), TimeUnit.NANOSECONDS).handle((removed, error) -> {
      if (error != null) {
        // kept and sent again when Redis answers: the job has ended, and a lease left to
        // expire would keep a permit from every node for the rest of its lease time
        store.owedReleases().owe(keys[0], id, channel, leaseNanos);
      }
      return null;
    });
  }
}
