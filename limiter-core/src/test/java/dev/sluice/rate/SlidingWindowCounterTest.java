package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The sliding window counter's figures, exactly: 10 per second, windows starting when the limiter
 * is built, so the previous window weighs what is left of the current one.
 */
class SlidingWindowCounterTest {

  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final long MS = Duration.ofMillis(1).toNanos();

  private final VirtualTime time = new VirtualTime();
  private final RateLimiter limiter =
      RateLimiter.of(Algorithm.SLIDING_WINDOW, RateLimit.of(10, Duration.ofSeconds(1)), time);

  private int burst(int attempts) {
    int allowed = 0;
    for (int i = 0; i < attempts; i++) {
      if (limiter.tryAcquire("k").allowed()) {
        allowed++;
      }
    }
    return allowed;
  }

  @Test
  void anAllowedRequestSaysWhatIsLeftAndWhenItsWindowStopsCounting() {
    time.advanceNanos(250 * MS);

    RateDecision first = limiter.tryAcquire("k", 3);

    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isEqualTo(7);
    assertThat(first.resetAfterNanos()).isEqualTo(750 * MS + SECOND);
  }

  @Test
  void theLastPermitOfTheWindowLeavesNoneRemaining() {
    burst(9);

    RateDecision last = limiter.tryAcquire("k");

    assertThat(last.allowed()).isTrue();
    assertThat(last.remaining()).isZero();
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
  }

  @Test
  void aRejectionInTheFullWindowWaitsIntoTheNextForTheCountToWeighLess() {
    burst(10);

    RateDecision rejected = limiter.tryAcquire("k");

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.remaining()).isZero();
    // next window, once 9 of its 10 weigh no more than 9: a tenth into it
    assertThat(rejected.retryAfterNanos()).isEqualTo(SECOND + 100 * MS);
    assertThat(rejected.resetAfterNanos()).isEqualTo(2 * SECOND);
  }

  @Test
  void aRejectionAfterTheWindowRolledWaitsForThePreviousWindowToWeighLess() {
    burst(10);
    time.advanceNanos(SECOND);

    RateDecision rejected = limiter.tryAcquire("k");

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(100 * MS);
    // only the previous window counts: full when this one ends
    assertThat(rejected.resetAfterNanos()).isEqualTo(SECOND);
  }

  @Test
  void theRetryAfterIsWhenTheRequestFitsExactly() {
    burst(10);
    time.advanceNanos(SECOND);
    long retryAfter = limiter.tryAcquire("k").retryAfterNanos();

    time.advanceNanos(retryAfter - 1);
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    time.advanceNanos(1);

    assertThat(limiter.tryAcquire("k").allowed()).isTrue();
  }

  @Test
  void aRequestOfTheCurrentWindowAndTheWeightOfThePreviousAreWaitedForTogether() {
    burst(10);
    time.advanceNanos(SECOND + 500 * MS);
    assertThat(burst(5)).isEqualTo(5); // previous weighs 5: 5 more fit

    RateDecision rejected = limiter.tryAcquire("k");

    // room for 10 - 5 - 1 = 4 of the previous 10: when 40 % of this window is left, at 600 ms
    assertThat(rejected.retryAfterNanos()).isEqualTo(100 * MS);
  }

  @Test
  void aCostAboveTheLimitNeverFits() {
    RateDecision rejected = limiter.tryAcquire("k", 11);

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(Long.MAX_VALUE);
    assertThat(rejected.resetAfterNanos()).isZero(); // nothing was counted
  }

  @Test
  void aCostOfTheWholeLimitWaitsUntilNothingCountedWeighsAnything() {
    burst(1);

    RateDecision rejected = limiter.tryAcquire("k", 10);

    // the one counted now weighs until the end of the next window
    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(2 * SECOND);
  }

  @Test
  void aRejectionLateInTheFullWindowWaitsOnlyWhatIsLeftOfItAndATenthOfTheNext() {
    time.advanceNanos(250 * MS);
    burst(10);

    RateDecision rejected = limiter.tryAcquire("k");

    assertThat(rejected.retryAfterNanos()).isEqualTo(750 * MS + 100 * MS);
  }

  @Test
  void aLaterWindowWeighsTheOneBeforeItToo() {
    time.advanceNanos(SECOND);
    burst(10);
    time.advanceNanos(SECOND + 500 * MS);

    assertThat(burst(20)).isEqualTo(5);
  }

  @Test
  void aCostOfTheWholeLimitFitsAnEmptyWindow() {
    RateDecision all = limiter.tryAcquire("k", 10);

    assertThat(all.allowed()).isTrue();
    assertThat(all.remaining()).isZero();
  }

  @Test
  void halfThePreviousWindowWeighsHalfwayThroughTheNext() {
    burst(10);
    time.advanceNanos(SECOND + 500 * MS);

    assertThat(burst(20)).isEqualTo(5);
  }

  @Test
  void aWindowWithNoRequestsInBetweenMakesTheOldCountsWeighNothing() {
    burst(10);
    time.advanceNanos(2 * SECOND);

    assertThat(burst(20)).isEqualTo(10);
  }

  @Test
  void aRefundInTheSameWindowGivesThePermitsBack() {
    burst(10);

    limiter.refund("k", 3);

    assertThat(burst(20)).isEqualTo(3);
  }

  @Test
  void aRefundOfMoreThanWasCountedGivesBackNoMoreThanTheLimit() {
    burst(2);

    limiter.refund("k", 5);

    assertThat(burst(20)).isEqualTo(10);
  }

  @Test
  void aRefundInTheNextWindowLightensThePreviousCount() {
    burst(10);
    time.advanceNanos(SECOND);

    limiter.refund("k", 4);

    // the previous window counts 6 at full weight
    assertThat(burst(20)).isEqualTo(4);
  }

  @Test
  void aRefundAfterARejectionRolledTheWindowLightensThePreviousCount() {
    burst(10);
    time.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();

    limiter.refund("k", 4);

    assertThat(burst(20)).isEqualTo(4);
  }

  @Test
  void aRefundTwoWindowsLaterChangesNothing() {
    burst(10);
    time.advanceNanos(2 * SECOND);

    limiter.refund("k", 4);

    assertThat(burst(20)).isEqualTo(10);
  }

  @Test
  void aKeyWhoseCountsAreAllRefundedIsForgottenAtOnce() {
    burst(3);

    limiter.refund("k", 3);

    assertThat(limiter.trackedKeys()).isZero();
  }

  @Test
  void aKeyIsKeptUntilTheWindowAfterItsLastRequestEnds() {
    time.advanceNanos(300 * MS);
    burst(1);

    time.advanceNanos(2 * SECOND - 300 * MS - 1);
    assertThat(limiter.trackedKeys()).isEqualTo(1);
    time.advanceNanos(1);

    assertThat(limiter.trackedKeys()).isZero();
  }

  @Test
  void aKeyWithOnlyAPreviousCountIsKeptUntilTheCurrentWindowEnds() {
    burst(10);
    time.advanceNanos(SECOND);
    assertThat(limiter.tryAcquire("k").allowed()).isFalse(); // rolls: previous 10, current 0

    time.advanceNanos(SECOND - 1);
    assertThat(limiter.trackedKeys()).isEqualTo(1);
    time.advanceNanos(1);

    assertThat(limiter.trackedKeys()).isZero();
  }

  @Test
  void aKeyNeverCountedIsFullForAnUnknownTime() {
    long origin = time.nanoTime();
    SlidingWindowCounter counter =
        new SlidingWindowCounter(RateLimit.of(10, Duration.ofSeconds(1)), origin);

    assertThat(counter.nanosUntilFull(counter.newState(origin), origin + SECOND))
        .isEqualTo(RateAlgorithm.ALWAYS_FULL);
  }

  @Test
  void aCountLongAgoIsFullForAsLongAsCanBeToldThenForAnUnknownTime() {
    long origin = time.nanoTime();
    SlidingWindowCounter counter =
        new SlidingWindowCounter(RateLimit.of(10, Duration.ofSeconds(1)), origin);
    SlidingWindowCounter.Counts counts = counter.newState(origin);
    counter.tryAcquire(counts, origin, 1); // counts until window 2 begins
    long windowsTold = (Long.MAX_VALUE / 4) / SECOND;
    long lastWindowTold = origin + (2 + windowsTold) * SECOND;

    assertThat(counter.nanosUntilFull(counts, lastWindowTold)).isEqualTo(-windowsTold * SECOND);
    assertThat(counter.nanosUntilFull(counts, lastWindowTold + SECOND - 1))
        .isEqualTo(-windowsTold * SECOND - (SECOND - 1));
    assertThat(counter.nanosUntilFull(counts, lastWindowTold + SECOND))
        .isEqualTo(RateAlgorithm.ALWAYS_FULL);
  }

  @Test
  void aKeyFirstSeenLongAfterTheLimiterWasBuiltStillRollsOverItsWindows() {
    VirtualTime clock = new VirtualTime(Duration.ofDays(30).toNanos());
    RateLimiter built =
        RateLimiter.of(Algorithm.SLIDING_WINDOW, RateLimit.of(10, Duration.ofSeconds(1)), clock);
    clock.advance(Duration.ofDays(1));

    assertThat(built.tryAcquire("k", 10).allowed()).isTrue();
    assertThat(built.tryAcquire("k").allowed()).isFalse();
    clock.advance(Duration.ofSeconds(2)); // both windows it counted in are over

    assertThat(built.tryAcquire("k", 10).allowed()).isTrue();
  }

  @Test
  void theAllocationFreeCallAnswersWhetherItAllowed() {
    RateOutcome outcome = new RateOutcome();

    assertThat(limiter.tryAcquire("k", 10, outcome)).isTrue();
    assertThat(outcome.toDecision().allowed()).isTrue();
    assertThat(limiter.tryAcquire("k", 1, outcome)).isFalse();
    assertThat(outcome.toDecision().allowed()).isFalse();
  }

  @Test
  void aLongerIdleExpiryNeverDropsAKeyWhoseCountsStillWeigh() {
    RateLimiter keeping = RateLimiter.builder(
            Algorithm.SLIDING_WINDOW, RateLimit.of(10, Duration.ofSeconds(1)))
        .clock(time)
        .expireAfterIdle(Duration.ofSeconds(10))
        .build();
    assertThat(keeping.tryAcquire("k", 10).allowed()).isTrue();
    time.advanceNanos(SECOND + 500 * MS);

    // full in 500 ms, and kept for 8 s after that: a sweep now keeps it
    assertThat(keeping.trackedKeys()).isEqualTo(1);
    assertThat(keeping.tryAcquire("k", 6).allowed()).isFalse(); // the previous 10 weigh 5
    assertThat(keeping.tryAcquire("k", 5).allowed()).isTrue();
  }
}
