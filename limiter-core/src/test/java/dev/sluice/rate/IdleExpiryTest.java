package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Lazy idle expiry, per algorithm, in virtual time: a key's state is dropped only once the
 * algorithm says it is full again, and dropping it then changes no decision.
 */
class IdleExpiryTest {

  private static final RateLimit TEN_PER_TEN_SECONDS = RateLimit.of(10, Duration.ofSeconds(10));

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aDrainedKeyIsKeptUntilFullAndDroppedOnceFull(Algorithm algorithm) {
    VirtualTime time = new VirtualTime();
    RateLimiter limiter = RateLimiter.of(algorithm, TEN_PER_TEN_SECONDS, time);
    long untilFull = fullTime(algorithm);
    assertThat(limiter.tryAcquire("k", 10).allowed()).isTrue();
    time.advanceNanos(untilFull - 1);
    assertThat(limiter.trackedKeys()).as("one nanosecond before full").isEqualTo(1);
    time.advanceNanos(1);
    assertThat(limiter.trackedKeys()).as("full again").isZero();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aKeyThatTookNothingMayBeDroppedAtOnce(Algorithm algorithm) {
    VirtualTime time = new VirtualTime();
    RateLimiter limiter = RateLimiter.of(algorithm, TEN_PER_TEN_SECONDS, time);
    // a cost above the capacity is rejected and counts nothing: the state is a new key's
    assertThat(limiter.tryAcquire("k", 11).allowed()).isFalse();
    assertThat(limiter.trackedKeys()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void sweepingAfterEveryRequestDecidesLikeKeepingEveryState(Algorithm algorithm) {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    for (int trace = 0; trace < 40; trace++) {
      long limit = 1L + random.nextInt(random.nextBoolean() ? 5 : 100);
      long periodNanos = 1_000_000L + random.nextInt(1_000_000_000);
      RateLimit rateLimit = RateLimit.of(limit, Duration.ofNanos(periodNanos));
      VirtualTime time = new VirtualTime();
      RateLimiter swept = RateLimiter.of(algorithm, rateLimit, time);
      // days of idle expiry: nothing is dropped during the trace (at most an hour)
      RateLimiter kept = RateLimiter.builder(algorithm, rateLimit)
          .clock(time)
          .expireAfterIdle(Duration.ofDays(5))
          .build();
      RandomTrace generated =
          RandomTrace.generate(random, 400, Math.max(1, periodNanos / limit), limit + 1);
      int step = 0;
      for (RandomTrace.Request request : generated.requests()) {
        time.advanceNanos(request.gapNanos());
        String key = "key-" + random.nextInt(3);
        String where = "seed " + seed + ", trace " + trace + " (" + rateLimit + "), step " + step++;
        RateDecision expected = kept.tryAcquire(key, request.cost());
        assertThat(swept.tryAcquire(key, request.cost())).as(where).isEqualTo(expected);
        if (expected.allowed() && random.nextInt(8) == 0) {
          kept.refund(key, request.cost());
          swept.refund(key, request.cost());
        }
        swept.trackedKeys(); // sweeps: drops every state that is full by now
      }
      assertThat(kept.trackedKeys()).as("seed %d", seed).isLessThanOrEqualTo(3);
    }
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void afterALongSilenceADrainedKeyIsFullAgain(Algorithm algorithm) {
    VirtualTime time = new VirtualTime();
    RateLimiter limiter = RateLimiter.of(algorithm, TEN_PER_TEN_SECONDS, time);
    assertThat(limiter.tryAcquire("k", 10).allowed()).isTrue();
    // far past the sweep interval and past the range the algorithm's arithmetic is exact over
    time.advance(Duration.ofDays(365L * 200));
    assertThat(limiter.tryAcquire("k", 10).allowed()).isTrue();
    assertThat(limiter.tryAcquire("k", 1).allowed()).isFalse();
  }

  private static long fullTime(Algorithm algorithm) {
    // the fixed windows start when the limiter is built, so a key drained at once is full at the
    // end of its window; the sliding window counter's count weighs for one more window
    return algorithm == Algorithm.SLIDING_WINDOW
        ? Duration.ofSeconds(20).toNanos()
        : Duration.ofSeconds(10).toNanos();
  }
}
