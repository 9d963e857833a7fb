package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** An unkeyed limiter is one quota for every key, deciding exactly as a keyed limiter's one key. */
class UnkeyedRateLimiterTest {

  private final VirtualTime time = new VirtualTime();

  @Test
  void everyKeyDrawsOnTheSameQuota() {
    RateLimiter all = RateLimiter.builder(
            Algorithm.TOKEN_BUCKET, RateLimit.of(2, Duration.ofSeconds(1)))
        .clock(time)
        .unkeyed()
        .build();

    assertThat(all.tryAcquire("10.0.0.1").allowed()).isTrue();
    assertThat(all.tryAcquire("10.0.0.2").allowed()).isTrue();
    assertThat(all.tryAcquire("10.0.0.3").allowed()).as("third key, same quota").isFalse();
    assertThat(all.trackedKeys()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  @SuppressWarnings("EnumOrdinal") // a fixed seed per algorithm
  void decidesEveryRequestAsAKeyedLimitersSingleKey(Algorithm algorithm) {
    SplittableRandom random = new SplittableRandom(algorithm.ordinal() * 31L + 7);
    RateLimit limit = new RateLimit(5, Duration.ofMillis(200), 8);
    RateLimiter keyed = RateLimiter.builder(algorithm, limit).clock(time).build();
    RateLimiter unkeyed =
        RateLimiter.builder(algorithm, limit).clock(time).unkeyed().build();
    int allowed = 0;
    for (int i = 0; i < 20_000; i++) {
      time.advanceNanos(random.nextLong(60_000_000));
      long cost = 1L + random.nextInt(3);
      RateDecision expected = keyed.tryAcquire("k", cost);
      assertThat(unkeyed.tryAcquire("any key " + i, cost)).as("request " + i).isEqualTo(expected);
      if (expected.allowed()) {
        allowed++;
        if (random.nextInt(10) == 0) {
          keyed.refund("k", cost);
          unkeyed.refund("another key", cost);
        }
      }
    }
    assertThat(allowed).as("the trace exercises both answers").isBetween(1_000, 19_000);
  }

  @Test
  void badInputIsRefusedAndTakesNothing() {
    RateLimiter all = RateLimiter.builder(Algorithm.GCRA, RateLimit.of(1, Duration.ofSeconds(1)))
        .clock(time)
        .unkeyed()
        .build();

    assertThatThrownBy(() -> all.tryAcquire(null, 1)).hasMessageContaining("key must not be null");
    assertThatThrownBy(() -> all.tryAcquire("", 1)).hasMessageContaining("key must not be empty");
    assertThatThrownBy(() -> all.tryAcquire("k", 0))
        .hasMessage("cost must be >= 1 but was 0 (key 'k')");
    assertThatThrownBy(() -> all.refund("k", -1)).hasMessageContaining("but was -1");
    assertThat(all.tryAcquire("k").allowed()).as("the state is intact").isTrue();
  }

  @Test
  void aKeyedLimiterTellsItsLimitAndAlgorithm() {
    RateLimit limit = RateLimit.of(2, Duration.ofSeconds(1));
    RateLimiter keyed = RateLimiter.builder(Algorithm.GCRA, limit).clock(time).build();

    assertThat(keyed.limit()).isEqualTo(limit);
    assertThat(keyed).hasToString("RateLimiter[gcra, " + limit + "]");
  }
}
