package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Per-key state in bounded memory: a bound on keys, idle expiry, and hot keys kept under a flood. */
class KeyedStateTest {

  private final VirtualTime time = new VirtualTime();

  @Test
  void aFloodOfAMillionOneOffKeysDoesNotResetAHotKeysBucket() {
    RateLimiter limiter = RateLimiter.builder(
            Algorithm.TOKEN_BUCKET, RateLimit.of(100, Duration.ofHours(1)))
        .clock(time)
        .maxKeys(1_000)
        .build();
    SplittableRandom random = new SplittableRandom(42);
    // ordinary traffic first, so the map is full of keys that took a little when the flood starts
    for (int i = 0; i < 5_000; i++) {
      limiter.tryAcquire("regular-" + random.nextInt(2_000));
      if (i % 20 == 0) {
        limiter.tryAcquire("hot");
      }
    }
    while (limiter.tryAcquire("hot").allowed()) {
      // drain the hot key: if its state were evicted, the next call would find a full bucket
    }
    int hotAllowed = 0;
    for (int i = 0; i < 1_000_000; i++) {
      limiter.tryAcquire(Long.toHexString(random.nextLong()));
      // seen once per 2,000 one-off keys, twice the map's size: plain LRU would drop it every time;
      // evicting the states closest to full drops the one-off keys first
      if (i % 2_000 == 0 && limiter.tryAcquire("hot").allowed()) {
        hotAllowed++;
      }
    }
    assertThat(hotAllowed).as("the hot key's empty bucket survived the flood").isZero();
    assertThat(limiter.trackedKeys()).isLessThanOrEqualTo(1_000);
  }

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
