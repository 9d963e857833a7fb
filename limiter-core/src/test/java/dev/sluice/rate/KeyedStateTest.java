package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Per-key state in bounded memory: a bound on keys and idle expiry (hot keys under a flood: {@link
 * KeyedStateFloodTest}).
 */
class KeyedStateTest {

  private final VirtualTime time = new VirtualTime();

  @Test
  void keysAreBoundedByMaxKeys() {
    RateLimiter limiter = RateLimiter.builder(
            Algorithm.SLIDING_LOG, RateLimit.of(5, Duration.ofMinutes(1)))
        .clock(time)
        .maxKeys(100)
        .build();
    for (int i = 0; i < 10_000; i++) {
      limiter.tryAcquire("ip-" + i);
    }
    assertThat(limiter.trackedKeys()).isLessThanOrEqualTo(100);
  }

  @Test
  void aKeyIsForgottenOnceItIsFullAgainAndNotBefore() {
    RateLimiter limiter =
        RateLimiter.of(Algorithm.TOKEN_BUCKET, RateLimit.of(10, Duration.ofSeconds(10)), time);
    limiter.tryAcquire("k", 10);
    time.advance(Duration.ofSeconds(10).minusNanos(1));
    assertThat(limiter.trackedKeys()).isEqualTo(1);
    assertThat(limiter.tryAcquire("k", 10).allowed())
        .as("still one token short")
        .isFalse();
    time.advance(Duration.ofSeconds(10));
    assertThat(limiter.trackedKeys()).as("full again: no state needed").isZero();
    assertThat(limiter.tryAcquire("k", 10).allowed()).isTrue();
  }

  @Test
  void aLongerIdleExpiryKeepsStateLonger() {
    RateLimiter limiter = RateLimiter.builder(
            Algorithm.FIXED_WINDOW, RateLimit.of(1, Duration.ofSeconds(1)))
        .clock(time)
        .expireAfterIdle(Duration.ofMinutes(5))
        .build();
    limiter.tryAcquire("k");
    time.advance(Duration.ofMinutes(4));
    assertThat(limiter.trackedKeys()).isEqualTo(1);
    time.advance(Duration.ofMinutes(2));
    assertThat(limiter.trackedKeys()).isZero();
  }
}
