package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Property: with no other traffic, a rejected request is still rejected one nanosecond before its
 * retry-after and allowed at it, so Retry-After headers are neither early nor late.
 */
@Tag("property")
class RetryAfterPropertyTest {

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void retryAfterIsTheFirstInstantTheSameRequestPasses(Algorithm algorithm) {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    int checked = 0;
    for (int trace = 0; trace < 30; trace++) {
      long limit = 1L + random.nextInt(20);
      RateLimit rateLimit =
          new RateLimit(limit, Duration.ofNanos(1_000 + random.nextInt(1_000_000_000)), limit);
      VirtualTime time = new VirtualTime();
      RateLimiter limiter = RateLimiter.of(algorithm, rateLimit, time);
      RandomTrace requests = RandomTrace.generate(random, 200, rateLimit.nanosPerPermit(), 3);
      for (RandomTrace.Request request : requests.requests()) {
        time.advanceNanos(request.gapNanos());
        RateDecision decision = limiter.tryAcquire("k", request.cost());
        if (decision.allowed() || decision.retryAfterNanos() == Long.MAX_VALUE) {
          continue;
        }
        String where =
            "seed " + seed + " trace " + trace + " " + rateLimit + " cost " + request.cost();
        time.advanceNanos(decision.retryAfterNanos() - 1);
        assertThat(limiter.tryAcquire("k", request.cost()).allowed())
            .as(where + ": 1 ns early")
            .isFalse();
        time.advanceNanos(1);
        assertThat(limiter.tryAcquire("k", request.cost()).allowed())
            .as(where + ": at retry-after")
            .isTrue();
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(100);
  }
}
