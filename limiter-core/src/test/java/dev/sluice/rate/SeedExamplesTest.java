package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The design's examples, with every algorithm: each key gets its own limit. */
class SeedExamplesTest {

  private final VirtualTime time = new VirtualTime();

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aUserPostsAtMostTwoMessagesASecond(Algorithm algorithm) {
    RateLimiter posts = RateLimiter.of(algorithm, RateLimit.of(2, Duration.ofSeconds(1)), time);
    assertAllowedThenRejected(posts, "user-1", 2, Duration.ofSeconds(1));
    assertThat(posts.tryAcquire("user-2").allowed())
        .as("another user has their own limit")
        .isTrue();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void anIpCreatesAtMostTenAccountsADay(Algorithm algorithm) {
    RateLimiter signups = RateLimiter.of(algorithm, RateLimit.of(10, Duration.ofDays(1)), time);
    time.advance(Duration.ofHours(3));
    assertAllowedThenRejected(signups, "203.0.113.7", 10, Duration.ofDays(1));
    assertThat(signups.tryAcquire("198.51.100.1").allowed()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aDeviceClaimsARewardAtMostFiveTimesAWeek(Algorithm algorithm) {
    RateLimiter claims = RateLimiter.of(algorithm, RateLimit.of(5, Duration.ofDays(7)), time);
    assertAllowedThenRejected(claims, "device-9f2c", 5, Duration.ofDays(7));
  }

  /** {@code n} at once pass, the next is rejected, and passes when its retry-after has elapsed. */
  private void assertAllowedThenRejected(RateLimiter limiter, String key, int n, Duration period) {
    for (int i = 0; i < n; i++) {
      RateDecision decision = limiter.tryAcquire(key);
      assertThat(decision.allowed()).as("request %d of %d", i + 1, n).isTrue();
      assertThat(decision.remaining()).isEqualTo(n - i - 1);
      assertThat(decision.limit()).isEqualTo(n);
      if (limiter.algorithm() == Algorithm.LEAKY_BUCKET_SHAPER) {
        // the shaper lets the burst through spaced at the steady rate
        assertThat(decision.delayNanos())
            .isEqualTo(i * LimitArithmetic.ceilDiv(period.toNanos(), n));
      } else {
        assertThat(decision.delayNanos()).isZero();
      }
    }
    RateDecision rejected = limiter.tryAcquire(key);
    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.remaining()).isZero();
    assertThat(rejected.retryAfterNanos()).isPositive().isLessThanOrEqualTo(2 * period.toNanos());
    time.advanceNanos(rejected.retryAfterNanos());
    assertThat(limiter.tryAcquire(key).allowed())
        .as("allowed once retry-after has passed")
        .isTrue();
  }
}
