package dev.sluice.redis;

import dev.sluice.time.Scheduler;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Lease releases that did not reach Redis (no connection, an error, no answer in time), sent again
 * every {@link #RETRY_EVERY_NANOS} and after every call that reached Redis, until one is answered or
 * the lease would have expired anyway. Dropping them let a lease outlive its job by its whole lease
 * time: after a killed master no job started for 18-26 s while Redis counted leases nobody held.
 * Sending a release again is safe: it removes one lease id, and ids are never reused.
 */
final class OwedReleases {

  private static final Logger LOG = LoggerFactory.getLogger(OwedReleases.class);
  static final long RETRY_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(200);

  /** One release: the lease set, the lease id, the channel to tell, and when it expires anyway. */
  record Owed(String leases, String id, String channel, long expiresAtNanos) {}

  private final Link link;
  private final LuaScript release;
  private final Scheduler scheduler;
  private final CallBound bound;
  private final Set<Owed> owed = ConcurrentHashMap.newKeySet();
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private final AtomicBoolean sending = new AtomicBoolean();
  private volatile boolean closed;

  OwedReleases(Link link, LuaScript release, Scheduler scheduler, CallBound bound) {
    this.link = link;
    this.release = release;
    this.scheduler = scheduler;
    this.bound = bound;
  }

  /** The release of {@code id} did not reach Redis: it is sent again until it does. */
  void owe(String leases, String id, String channel, long leaseNanos) {
    owed.add(new Owed(leases, id, channel, System.nanoTime() + leaseNanos));
    scheduleRetry();
  }

  int size() {
    return owed.size();
  }

  /** Sends every owed release once (one round at a time); those answered are paid. */
  // FutureReturnValueIgnored: the callback handles the failure; the future it returns is not
  // needed.
  // ModifySourceCollectionInStream: owed is a concurrent set, whose streams allow removal
  @SuppressWarnings({"FutureReturnValueIgnored", "ModifySourceCollectionInStream"})
  void retry() {
    if (owed.isEmpty() || closed || !sending.compareAndSet(false, true)) {
      return;
    }
    RedisScriptingAsyncCommands<String, String> redis = link.commands();
    if (redis == null) {
      sending.set(false);
      return;
    }
    long now = System.nanoTime();
    CompletableFuture<?>[] round = owed.stream()
        .map(release -> {
          if (release.expiresAtNanos - now <= 0) {
            owed.remove(release); // Redis has dropped it by itself
            return CompletableFuture.completedFuture(null);
          }
          try {
            return this.release
                .runForLong(redis, new String[] {release.leases}, release.id, release.channel)
                .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
                .whenComplete((removed, error) -> {
                  if (error == null) {
                    owed.remove(release);
                  }
                });
          } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
          }
        })
        .toArray(CompletableFuture[]::new);
    CompletableFuture.allOf(round).whenComplete((ignored, error) -> {
      sending.set(false);
      if (error != null) {
        LOG.debug("{} lease release(s) still owed to Redis", owed.size(), error);
      }
    });
  }

  private void scheduleRetry() {
    if (closed || !scheduled.compareAndSet(false, true)) {
      return;
    }
    scheduler.schedule(
        () -> {
          scheduled.set(false);
          retry();
          if (!owed.isEmpty()) {
            scheduleRetry();
          }
        },
        RETRY_EVERY_NANOS);
  }

  /** The store closes: what is still owed expires in Redis by itself. */
  void close() {
    closed = true;
  }
}
