package dev.sluice.redis;

import dev.sluice.store.PermitStore;
import dev.sluice.store.RateStore;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import dev.sluice.time.Scheduler;
import java.util.concurrent.TimeUnit;

/**
 * Global rate state and concurrency leases in Redis, over one multiplexed Lettuce connection.
 *
 * <p>Usually found through {@link RedisStoreProvider} (set {@code sluice.redis.uri}); can be opened
 * directly:
 *
 * <pre>{@code
 * StoreSettings settings = new StoreSettings(URI.create("redis://127.0.0.1:6379"),
 *     Duration.ofMillis(50), 3, FailurePolicy.LOCAL, NanoClock.system());
 * try (RedisStores stores = RedisStores.open(settings)) {
 *   stores.rates().tryAcquire(List.of(request)).thenAccept(decisions -> ...);
 * }
 * }</pre>
 *
 * <p>Opening never fails because Redis is unreachable: the stores start in state {@link
 * RedisState#DOWN}, decide as the failure policy says, and switch to Redis once it answers.
 */
public final class RedisStores implements Stores {

  private final Link link;
  private final Guard guard;
  private final RedisRateStore rates;
  private final RedisPermitStore permits;

  RedisStores(StoreSettings settings, Scheduler scheduler) {
    this.link = new Link(settings);
    this.guard = new Guard(link.where(), settings.onFailure(), settings.expectedNodes());
    long timeoutNanos = settings.timeout().toNanos();
    this.rates = new RedisRateStore(link, guard, new RateScripts(),
        new LocalShare(settings.onFailure(), settings.expectedNodes(), settings.clock()),
        timeoutNanos);
    this.permits = new RedisPermitStore(link, guard, settings.onFailure(),
        settings.expectedNodes(), scheduler, timeoutNanos);
  }

  /**
   * Connects to the Redis at {@code settings.uri()} ({@code redis://} or {@code rediss://}; add
   * {@code ?cluster=true} for Redis Cluster), waiting at most the store timeout or 1 s, whichever is
   * longer, for the first connection. Never throws because Redis is unreachable.
   */
  public static RedisStores open(StoreSettings settings) {
    RedisStores stores = new RedisStores(settings, Scheduler.system());
    stores.connect(settings);
    return stores;
  }

  void connect(StoreSettings settings) {
    try {
      link.connect().get(Math.max(settings.timeout().toMillis(), 1_000), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (Exception e) {
      // not connected in time: fall through to the check below
    }
    if (link.commands() == null) {
      Throwable why = link.lastConnectError();
      while (why != null && why.getCause() != null) {
        why = why.getCause(); // Lettuce wraps the reason (refused, unknown host, auth) deep down
      }
      guard.markDown(new IllegalStateException("cannot connect at start-up"
          + (why == null ? " in time" : ": " + why), why));
    }
  }

  @Override
  public RateStore rates() {
    return rates;
  }

  @Override
  public PermitStore permits() {
    return permits;
  }

  /** Whether global rules are decided in Redis right now. */
  public RedisState state() {
    return guard.state();
  }

  /** How many decisions (rates and permits) were made without Redis since opening. */
  public long degradedDecisions() {
    return guard.degradedDecisions();
  }

  /** E.g. {@code redis://127.0.0.1:6379 (up)}, or the failure policy in force while down. */
  public String describe() {
    return guard.describe();
  }

  @Override
  public String toString() {
    return describe();
  }

  /** Closes the connection; leases still held expire in Redis after their lease time. */
  @Override
  public void close() {
    permits.close();
    link.close();
  }
}
