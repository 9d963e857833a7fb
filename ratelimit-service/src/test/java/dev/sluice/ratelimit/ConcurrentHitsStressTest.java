package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads asking at once for a few users, with random hits, counted as envoy/ratelimit counts
 * them (a refused request's hits count too): per user and window, the hits answered OK never add
 * up to more than the limit, and a user was refused only once all the hits asked (OK and refused)
 * passed the limit.
 */
@Tag("stress")
class ConcurrentHitsStressTest {

  private static final String YAML = """
      domain: api
      descriptors:
        - key: user
          rate_limit:
            unit: second
            requests_per_unit: 50
      """;

  @Test
  void okHitsNeverPassTheLimit() throws Exception {
    long seed = Seeds.seed();
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    DescriptorConfig config = DescriptorConfig.parse("api.yaml", YAML);
    ShouldRateLimit decisions = new ShouldRateLimit(() -> config, new LocalCounters(time), time);
    int users = 3;
    AtomicLong[] okHits = new AtomicLong[users];
    AtomicLong[] refusedHits = new AtomicLong[users];
    for (int u = 0; u < users; u++) {
      okHits[u] = new AtomicLong();
      refusedHits[u] = new AtomicLong();
    }
    int threads = 4;
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    CountDownLatch go = new CountDownLatch(1);
    List<Future<?>> done = new ArrayList<>();
    for (int t = 0; t < threads; t++) {
      Random random = new Random(seed + t);
      done.add(pool.submit(() -> {
        go.await();
        for (int i = 0; i < 2_000; i++) {
          int user = random.nextInt(users);
          int hits = 1 + random.nextInt(3);
          RateLimitResponse answer = decisions
              .decide(
                  RlsFixture.request("api", RlsFixture.descriptor("user", "u" + user)).toBuilder()
                      .setHitsAddend(hits)
                      .build())
              .toCompletableFuture()
              .join();
          if (answer.getOverallCode() == Code.OK) {
            okHits[user].addAndGet(hits);
          } else {
            refusedHits[user].addAndGet(hits);
          }
        }
        return null;
      }));
    }
    go.countDown();
    for (Future<?> f : done) {
      f.get(60, TimeUnit.SECONDS);
    }
    pool.shutdown();
    for (int u = 0; u < users; u++) {
      assertThat(okHits[u].get()).as("seed %d, user %d", seed, u).isLessThanOrEqualTo(50);
      if (refusedHits[u].get() > 0) {
        assertThat(okHits[u].get() + refusedHits[u].get())
            .as("seed %d, user %d: refused while room was left", seed, u)
            .isGreaterThan(50);
      }
    }
  }
}
