package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.simulated.QuotaProxy.bucket;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.ratelimit.simulated.QuotaProxy;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Many proxies reporting at once, each on its own thread and clock, with random demands over two
 * buckets: every report is answered with one assignment per reported bucket, in order; and once
 * the demands hold still, the shares are the fair division of them and add up to the quota.
 */
class ConcurrentReportsStressTest {

  private static final int PROXIES = 6;
  private static final int ROUNDS = 15;
  private static final List<BucketId> BUCKETS =
      List.of(bucket("name", "a"), bucket("name", "b", "env", "prod"));

  @Test
  void concurrentReportsAreAnsweredInOrderAndSettleOnTheFairDivision() throws Exception {
    long seed = System.nanoTime();
    try (QuotaFixture f = new QuotaFixture(Map.of(
        "sluice.ratelimit-service.quota.default", "120/1s",
        "sluice.ratelimit-service.quota.assignment-ttl", "1h"))) {
      List<QuotaProxy> proxies = new ArrayList<>();
      List<VirtualTime> clocks = new ArrayList<>();
      for (int i = 0; i < PROXIES; i++) {
        VirtualTime clock = new VirtualTime();
        clocks.add(clock);
        proxies.add(new QuotaProxy(f.server.port(), clock, "envoy", QuotaFixture.ALLOW_ALL));
      }
      ExecutorService pool = Executors.newFixedThreadPool(PROXIES);
      try {
        List<Future<?>> runs = new ArrayList<>();
        for (int i = 0; i < PROXIES; i++) {
          QuotaProxy p = proxies.get(i);
          VirtualTime clock = clocks.get(i);
          Random random = new Random(seed + i);
          runs.add(pool.submit(() -> {
            for (int round = 0; round < ROUNDS; round++) {
              for (BucketId b : BUCKETS) {
                // a proxy reports only the buckets it has seen: each sees both in its first round,
                // after that a round without requests into a bucket reports zero usage
                p.requests(b, random.nextInt(80) + (round == 0 ? 1 : 0));
              }
              clock.advance(Duration.ofMillis(200 + random.nextInt(1800)));
              answeredInOrder(p.report());
            }
            return null;
          }));
        }
        for (Future<?> run : runs) {
          run.get();
        }
      } finally {
        pool.shutdownNow();
      }
      // the demands hold still: two sequential rounds, the second sees one and the same view
      int[] demands = new Random(seed).ints(PROXIES, 0, 100).toArray();
      long[] shares = new long[PROXIES];
      for (int round = 0; round < 2; round++) {
        for (int i = 0; i < PROXIES; i++) {
          QuotaProxy p = proxies.get(i);
          p.requests(BUCKETS.get(0), demands[i]);
          clocks.get(i).advance(Duration.ofSeconds(1));
          RateLimitQuotaResponse answer = p.report();
          shares[i] = answer
              .getBucketAction(0)
              .getQuotaAssignmentAction()
              .getRateLimitStrategy()
              .getRequestsPerTimeUnit()
              .getRequestsPerTimeUnit();
        }
      }
      String at = "seed " + seed;
      long sum = 0;
      for (long s : shares) {
        sum += s;
      }
      assertThat(sum).as(at).isEqualTo(120);
      for (int i = 0; i < PROXIES; i++) {
        // what a proxy asked for is met when its demand is no more than an equal share
        if (demands[i] <= 120 / PROXIES) {
          assertThat(shares[i]).as(at).isGreaterThanOrEqualTo(demands[i]);
        }
        // max-min: one held below its demand has no less than any other (1 for rounding)
        if (shares[i] < demands[i]) {
          for (long other : shares) {
            assertThat(other).as(at).isLessThanOrEqualTo(shares[i] + 1);
          }
        }
      }
      proxies.forEach(QuotaProxy::close);
    }
  }

  private static void answeredInOrder(RateLimitQuotaResponse response) {
    List<BucketAction> actions = response.getBucketActionList();
    assertThat(actions).hasSizeGreaterThanOrEqualTo(BUCKETS.size());
    for (int i = 0; i < BUCKETS.size(); i++) {
      assertThat(actions.get(i).getBucketId()).isEqualTo(BUCKETS.get(i));
      assertThat(actions.get(i).hasQuotaAssignmentAction()).isTrue();
    }
  }
}
