package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The fixed window's figures, exactly: 10 per second, windows starting when the limiter is built.
 */
class FixedWindowTest {

  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final long MS = Duration.ofMillis(1).toNanos();
  private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

  private final VirtualTime time = new VirtualTime();
  private final RateLimiter limiter = RateLimiter.of(Algorithm.FIXED_WINDOW, TEN_PER_SECOND, time);

  @Test
  void anAllowedRequestSaysWhatIsLeftAndWhenItsWindowEnds() {
    time.advanceNanos(250 * MS);

    RateDecision allowed = limiter.tryAcquire("k", 3);

    assertThat(allowed.allowed()).isTrue();
    assertThat(allowed.remaining()).isEqualTo(7);
    assertThat(allowed.resetAfterNanos()).isEqualTo(750 * MS);
  }

  @Test
  void aRejectionInAFullWindowWaitsForTheNext() {
    time.advanceNanos(250 * MS);
    limiter.tryAcquire("k", 10);

    RateDecision rejected = limiter.tryAcquire("k");

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(750 * MS);
    assertThat(rejected.resetAfterNanos()).isEqualTo(750 * MS);
  }

  @Test
  void aCostOfTheWholeLimitFitsTheNextWindow() {
    time.advanceNanos(250 * MS);
    limiter.tryAcquire("k");

    RateDecision rejected = limiter.tryAcquire("k", 10);

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(750 * MS);
  }

  @Test
  void theLargestCountAWindowCanHoldIsALimitItAccepts() {
    RateLimiter largest = RateLimiter.of(
        Algorithm.FIXED_WINDOW, RateLimit.of(FixedWindow.MAX_LIMIT, Duration.ofSeconds(1)), time);

    RateDecision all = largest.tryAcquire("k", FixedWindow.MAX_LIMIT);

    assertThat(all.allowed()).isTrue();
    assertThat(all.remaining()).isZero();
  }

  @Test
  void aKeyNeverCountedIsFullForAnUnknownTime() {
    long origin = time.nanoTime();
    FixedWindow window = new FixedWindow(TEN_PER_SECOND, origin);

    assertThat(window.nanosUntilFull(window.newState(origin), origin + SECOND))
        .isEqualTo(RateAlgorithm.ALWAYS_FULL);
  }

  @Test
  void aCountIsSpentWhenItsWindowEndsAndFullEverSince() {
    long origin = time.nanoTime();
    FixedWindow window = new FixedWindow(TEN_PER_SECOND, origin);
    LongState state = window.newState(origin);
    window.tryAcquire(state, origin + SECOND + 200 * MS, 1); // counted in the second window

    assertThat(window.nanosUntilFull(state, origin + SECOND + 250 * MS)).isEqualTo(750 * MS);
    assertThat(window.nanosUntilFull(state, origin + 3 * SECOND + 100 * MS))
        .isEqualTo(-(SECOND + 100 * MS));
  }

  @Test
  void aKeyIsToldApartForTwoToTheThirtyFirstWindowsEvenOfTheLongestPeriodThatFits() {
    // the longest period whose 2^31 windows still fit in a long's nanoseconds
    long period = Long.MAX_VALUE >> 31;
    FixedWindow window =
        new FixedWindow(RateLimit.of(10, Duration.ofNanos(period)), time.nanoTime());

    assertThat(window.maxIdleNanos()).isEqualTo(period << 31);
  }
}
