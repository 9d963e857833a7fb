package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A decision written into a reused {@link RateOutcome} is the decision {@link
 * RateLimiter#tryAcquire(String, long)} returns as a record, for every algorithm, keyed and not.
 */
class RateOutcomeTest {

  private static final RateLimit LIMIT = RateLimit.of(10, Duration.ofSeconds(1)).withBurst(15);

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aReusedOutcomeAnswersWhatTheRecordAnswersOnARandomTrace(Algorithm algorithm) {
    for (boolean unkeyed : new boolean[] {false, true}) {
      VirtualTime time = new VirtualTime();
      RateLimiter records = build(algorithm, time, unkeyed);
      RateLimiter inPlace = build(algorithm, time, unkeyed);
      RateOutcome outcome = new RateOutcome();
      Random random = new Random(algorithm.id().hashCode() * 31L + (unkeyed ? 1 : 0));
      int allowed = 0;
      for (RandomTrace.Request r : RandomTrace.generate(
              random, 2_000, Duration.ofMillis(80).toNanos(), 4)
          .requests()) {
        time.advanceNanos(r.gapNanos());
        String key = "k" + random.nextInt(3);
        RateDecision expected = records.tryAcquire(key, r.cost());

        boolean answer = inPlace.tryAcquire(key, r.cost(), outcome);

        assertThat(answer).isEqualTo(outcome.allowed());
        assertThat(outcome.toDecision()).isEqualTo(expected);
        allowed += answer ? 1 : 0;
      }
      assertThat(allowed).as("the trace both allows and rejects").isBetween(1, 1_999);
    }
  }

  @Test
  void theShapersDelayIsClearedByTheNextDecision() {
    VirtualTime time = new VirtualTime();
    RateLimiter shaper = RateLimiter.of(
        Algorithm.LEAKY_BUCKET_SHAPER, RateLimit.of(10, Duration.ofSeconds(1)).withBurst(3), time);
    RateLimiter meter = RateLimiter.of(Algorithm.TOKEN_BUCKET, LIMIT, time);
    RateOutcome outcome = new RateOutcome();
    shaper.tryAcquire("k", 1, outcome);
    shaper.tryAcquire("k", 1, outcome);
    assertThat(outcome.delayNanos()).isEqualTo(Duration.ofMillis(100).toNanos());

    meter.tryAcquire("k", 1, outcome);

    assertThat(outcome.delayNanos()).isZero();
    assertThat(outcome.allowed()).isTrue();
  }

  @Test
  void badInputLeavesTheOutcomeAsItWas() {
    RateLimiter limiter = RateLimiter.of(Algorithm.GCRA, LIMIT, new VirtualTime());
    RateOutcome outcome = new RateOutcome();
    limiter.tryAcquire("k", 1, outcome);
    RateDecision before = outcome.toDecision();

    assertThatThrownBy(() -> limiter.tryAcquire("k", 0, outcome))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("cost must be >= 1 but was 0");
    assertThatThrownBy(() -> limiter.tryAcquire("", 1, outcome))
        .isInstanceOf(IllegalArgumentException.class);

    assertThat(outcome.toDecision()).isEqualTo(before);
  }

  @Test
  void aLimiterOfAnotherMakerFillsTheOutcomeFromItsRecord() {
    RateDecision fixed = RateDecision.rejected(5, 7, 9);
    RateLimiter other = new RateLimiter() {
      @Override
      public RateDecision tryAcquire(String key, long cost) {
        return fixed;
      }

      @Override
      public void refund(String key, long cost) {}

      @Override
      public RateLimit limit() {
        return LIMIT;
      }

      @Override
      public Algorithm algorithm() {
        return Algorithm.TOKEN_BUCKET;
      }

      @Override
      public long trackedKeys() {
        return 0;
      }
    };
    RateOutcome outcome = new RateOutcome();

    assertThat(other.tryAcquire("k", 1, outcome)).isFalse();
    assertThat(outcome.toDecision()).isEqualTo(fixed);
    assertThat(new RateOutcome().set(outcome).toDecision()).isEqualTo(fixed);
  }

  private static RateLimiter build(Algorithm algorithm, VirtualTime time, boolean unkeyed) {
    RateLimiter.Builder builder = RateLimiter.builder(algorithm, LIMIT).clock(time);
    if (unkeyed) {
      builder.unkeyed();
    }
    return builder.build();
  }
}
