package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * Hot keys keep their state under a flood of a million one-off keys: what a bounded key map must
 * not forget. A million decisions each, so mutation testing leaves these out (see the module's
 * pom); the mutants of the eviction order are killed by the unit tests of the map itself.
 */
class KeyedStateFloodTest {

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
}
