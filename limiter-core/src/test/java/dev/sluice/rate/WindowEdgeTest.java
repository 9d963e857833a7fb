package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The fixed window's known flaw at a window edge, and the algorithms that do not have it. */
class WindowEdgeTest {

  private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

  private final VirtualTime time = new VirtualTime();

  @Test
  void fixedWindowAdmitsTwiceTheLimitAcrossAWindowEdge() {
    RateLimiter fixed = RateLimiter.of(Algorithm.FIXED_WINDOW, TEN_PER_SECOND, time);
    time.advance(Duration.ofSeconds(1).minusNanos(1));
    // the last nanosecond of the first window, then the first of the next: 2 ns, 20 requests
    assertThat(burst(fixed, 30)).isEqualTo(10);
    time.advanceNanos(1);
    assertThat(burst(fixed, 30)).isEqualTo(10);
  }

  @Test
  void slidingLogAdmitsOnlyTheLimitAcrossTheSameEdge() {
    RateLimiter log = RateLimiter.of(Algorithm.SLIDING_LOG, TEN_PER_SECOND, time);
    time.advance(Duration.ofSeconds(1).minusNanos(1));
    assertThat(burst(log, 30)).isEqualTo(10);
    time.advanceNanos(1);
    assertThat(burst(log, 30)).isZero();
  }

  @Test
  void slidingWindowCounterWeighsThePreviousWindowAcrossTheEdge() {
    RateLimiter counter = RateLimiter.of(Algorithm.SLIDING_WINDOW, TEN_PER_SECOND, time);
    time.advance(Duration.ofSeconds(1).minusNanos(1));
    assertThat(burst(counter, 30)).isEqualTo(10);
    time.advanceNanos(1);
    assertThat(burst(counter, 30)).as("the previous window still weighs ~100%").isZero();
    time.advance(Duration.ofMillis(500));
    assertThat(burst(counter, 30))
        .as("half of the previous window has slid out")
        .isEqualTo(5);
  }

  @Test
  void fixedWindowForgetsTheCountAtTheNextWindow() {
    RateLimiter fixed = RateLimiter.of(Algorithm.FIXED_WINDOW, TEN_PER_SECOND, time);
    assertThat(burst(fixed, 10)).isEqualTo(10);
    RateDecision rejected = fixed.tryAcquire("k");
    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
    assertThat(rejected.resetAfterNanos()).isEqualTo(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void fixedWindowStartsItsWindowsAtTheGivenOrigin() {
    // the limiter is made 400 ms into a window that started at the origin: that window ends
    // 600 ms later, not a full period after the limiter was made
    long origin = time.nanoTime() - Duration.ofMillis(400).toNanos();
    RateLimiter aligned = RateLimiter.builder(Algorithm.FIXED_WINDOW, TEN_PER_SECOND)
        .clock(time)
        .windowOrigin(origin)
        .build();
    assertThat(burst(aligned, 30)).isEqualTo(10);
    RateDecision rejected = aligned.tryAcquire("k");
    assertThat(rejected.resetAfterNanos()).isEqualTo(Duration.ofMillis(600).toNanos());
    time.advance(Duration.ofMillis(599));
    assertThat(burst(aligned, 30)).isZero();
    time.advance(Duration.ofMillis(1));
    assertThat(burst(aligned, 30)).isEqualTo(10);
  }

  private static int burst(RateLimiter limiter, int attempts) {
    int allowed = 0;
    for (int i = 0; i < attempts; i++) {
      if (limiter.tryAcquire("k").allowed()) {
        allowed++;
      }
    }
    return allowed;
  }
}
