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
  void aFloodOfSequentialAddressesDoesNotResetADrainedAddress() {
    // what a flood of client IPs looks like: keys alike but for their last digits, so the map's
    // iteration order (by hash) is anything but random with respect to when each key came
    RateLimiter limiter = RateLimiter.builder(
            Algorithm.TOKEN_BUCKET, RateLimit.of(60, Duration.ofHours(1)).withBurst(50))
        .clock(time)
        .maxKeys(100_000)
        .build();
    String known = "198.51.100.7";
    while (limiter.tryAcquire(known).allowed()) {
      // drain it: if its state were evicted, the next call would find a full bucket
    }
    int knownAllowed = 0;
    for (int k = 0; k < 1_000_000; k++) {
      time.advanceNanos(100_000); // 10,000 new addresses a second
      limiter.tryAcquire("10." + ((k >> 16) & 255) + "." + ((k >> 8) & 255) + "." + (k & 255));
      if (k % 2_000 == 0 && limiter.tryAcquire(known).allowed()) {
        knownAllowed++;
      }
    }
    // 100 s at one permit a minute: one or two came back, a reset would give 50
    assertThat(knownAllowed).as("the drained address kept its state").isLessThanOrEqualTo(2);
    assertThat(limiter.trackedKeys()).isLessThanOrEqualTo(100_000);
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
