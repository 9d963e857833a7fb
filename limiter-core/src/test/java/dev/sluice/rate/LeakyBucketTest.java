package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The leaky bucket as a meter (rejects beyond the burst) and as a shaper (delays within it). */
class LeakyBucketTest {

  private static final long HUNDRED_MS = Duration.ofMillis(100).toNanos();
  // 10 per second leaks one permit every 100 ms; the bucket holds 3
  private static final RateLimit LIMIT = new RateLimit(10, Duration.ofSeconds(1), 3);

  private final VirtualTime time = new VirtualTime();

  @Test
  void shaperSpacesABurstAtTheSteadyRateAndRejectsBeyondIt() {
    RateLimiter shaper = RateLimiter.of(Algorithm.LEAKY_BUCKET_SHAPER, LIMIT, time);
    assertThat(shaper.tryAcquire("k").delayNanos()).isZero();
    assertThat(shaper.tryAcquire("k").delayNanos()).isEqualTo(HUNDRED_MS);
    assertThat(shaper.tryAcquire("k").delayNanos()).isEqualTo(2 * HUNDRED_MS);
    RateDecision overflow = shaper.tryAcquire("k");
    assertThat(overflow.allowed()).isFalse();
    assertThat(overflow.retryAfterNanos()).isEqualTo(HUNDRED_MS);
    time.advance(Duration.ofMillis(150));
    RateDecision later = shaper.tryAcquire("k");
    assertThat(later.allowed()).isTrue();
    // 300 ms of work queued at t=0, 150 ms of it leaked: wait the other 150 ms
    assertThat(later.delayNanos()).isEqualTo(Duration.ofMillis(150).toNanos());
  }

  @Test
  void meterAdmitsTheBurstAtOnceAndThenOnlyTheSteadyRate() {
    RateLimiter meter = RateLimiter.of(Algorithm.LEAKY_BUCKET, LIMIT, time);
    for (int i = 0; i < 3; i++) {
      RateDecision decision = meter.tryAcquire("k");
      assertThat(decision.allowed()).isTrue();
      assertThat(decision.delayNanos()).isZero();
    }
    assertThat(meter.tryAcquire("k").allowed()).isFalse();
    int allowed = 0;
    for (int ms = 0; ms < 1000; ms++) {
      time.advance(Duration.ofMillis(1));
      if (meter.tryAcquire("k").allowed()) {
        allowed++;
      }
    }
    assertThat(allowed).as("one per 100 ms once the burst is spent").isEqualTo(10);
  }

  @Test
  void multiPermitRequestFillsTheBucketByItsCost() {
    RateLimiter meter = RateLimiter.of(Algorithm.LEAKY_BUCKET, LIMIT, time);
    assertThat(meter.tryAcquire("k", 2).remaining()).isEqualTo(1);
    assertThat(meter.tryAcquire("k", 2).allowed()).isFalse();
    RateDecision tooBig = meter.tryAcquire("k", 4);
    assertThat(tooBig.allowed()).isFalse();
    assertThat(tooBig.retryAfterNanos()).as("can never fit").isEqualTo(Long.MAX_VALUE);
  }
}
