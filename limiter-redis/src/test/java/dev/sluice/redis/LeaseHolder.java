package dev.sluice.redis;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import java.net.URI;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A node in a JVM of its own, for {@link NodeCrashTest}: takes {@code hold} permits of the global
 * limiter {@code name} (limit {@code max}, default lease time) and keeps them until it is killed.
 * Arguments: Redis URI, limiter name, max, hold.
 */
final class LeaseHolder {

  private LeaseHolder() {}

  public static void main(String[] args) throws Exception {
    int max = Integer.parseInt(args[2]);
    int hold = Integer.parseInt(args[3]);
    RedisStores stores = RedisStores.open(new StoreSettings(
        URI.create(args[0]), Duration.ofSeconds(1), 2, FailurePolicy.LOCAL, NanoClock.system()));
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder(args[1])
        .spec(LimiterSpec.custom()
            .maxConcurrency(max)
            .maxQueue(hold)
            .queueTimeout(Duration.ofSeconds(30))
            .build())
        .permitStore(stores.permits())
        .build();
    for (int i = 0; i < hold; i++) {
      limiter.acquire().get(30, TimeUnit.SECONDS);
    }
    new CountDownLatch(1).await(); // holds the permits (renewing their leases) until killed
  }
}
