package dev.sluice.concurrency.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import org.junit.jupiter.api.Test;

/**
 * The counters and estimates behind a limiter's snapshot and predictions, worked out by hand: the
 * recent service time (a plain mean of the first samples, then weighted toward the last ten), the
 * spread of the per-unit service time, the turnover rate's variation, the running permits' elapsed
 * time, the sampled total and the Retry-After estimate.
 */
class LimiterStatsTest {

  private static final double EXACT = 1e-9;

  @Test
  void theFirstSamplesAreAveragedPlainlyPerUnitOfCost() {
    LimiterStats stats = new LimiterStats();
    assertThat(stats.recentServiceNanos()).isNaN();

    stats.timed(100);
    assertThat(stats.recentServiceNanos()).isEqualTo(100);
    stats.timed(200);
    assertThat(stats.recentServiceNanos()).as("(100 + 200) / 2").isCloseTo(150, within(EXACT));
    stats.timed(600, 2, Double.NaN); // 300 per unit
    assertThat(stats.recentServiceNanos())
        .as("(100 + 200 + 300) / 3")
        .isCloseTo(200, within(EXACT));

    assertThat(stats.timedCount.sum()).isEqualTo(3);
    assertThat(stats.timedTotal.sum()).as("whole service times").isEqualTo(900);
    assertThat(stats.serviceMax.get()).isEqualTo(600);
  }

  @Test
  void afterTenSamplesEachNewOneWeighsATenth() {
    LimiterStats stats = new LimiterStats();
    for (int i = 0; i < 10; i++) {
      stats.timed(100);
    }

    stats.timed(1_100);

    assertThat(stats.recentServiceNanos()).isCloseTo(100 + 0.1 * 1_000, within(EXACT));
  }

  @Test
  void theSpreadOfThePerUnitServiceTimeIsTheSampleVarianceOverTheSquaredMean() {
    LimiterStats stats = new LimiterStats();
    stats.timed(100);
    assertThat(stats.serviceVariation2(1)).as("one sample").isNaN();
    stats.timed(400, 2, Double.NaN); // 200 per unit
    stats.timed(300);

    // per unit 100, 200, 300: mean 200, sample variance 10,000, so 10,000 / 200^2
    assertThat(stats.serviceVariation2(3)).isCloseTo(0.25, within(EXACT));
    // a count read behind the sums (a release between the reads) gives no negative spread
    assertThat(stats.serviceVariation2(2)).isZero();
  }

  @Test
  void equalServiceTimesHaveNoSpreadAndZeroTimesNone() {
    LimiterStats stats = new LimiterStats();
    stats.timed(100);
    stats.timed(100);
    assertThat(stats.serviceVariation2(2)).isZero();

    LimiterStats instant = new LimiterStats();
    instant.timed(0);
    instant.timed(0);
    assertThat(instant.serviceVariation2(2)).as("no time measured").isNaN();
  }

  @Test
  void theTurnoverRateIsSampledOnceTheMeanIsLearnedAndItsVariationFollowsItsMoves() {
    LimiterStats stats = new LimiterStats();
    for (int i = 0; i < 10; i++) {
      stats.timed(100, 1, 4.0); // still learning: no rate sampled
    }
    assertThat(stats.rateVariation()).isZero();

    stats.timed(100, 1, 4.0); // rate 4 / 100
    assertThat(stats.rateVariation()).as("one rate sample").isZero();

    stats.timed(200, 1, 4.0); // service 110, rate 4 / 110
    double first = 4.0 / 100;
    double diff = 4.0 / 110 - first;
    double mean = first + 0.1 * diff;
    double variance = 0.9 * (0.1 * diff * diff);
    assertThat(stats.rateVariation()).isCloseTo(Math.sqrt(variance) / mean, within(EXACT));
  }

  @Test
  void aLimitBelowOneCountsAsOneAndNoLimitSamplesNoRate() {
    LimiterStats belowOne = new LimiterStats();
    LimiterStats one = new LimiterStats();
    LimiterStats none = new LimiterStats();
    for (long nanos : new long[] {100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 300}) {
      belowOne.timed(nanos, 1, 0.25);
      one.timed(nanos, 1, 1.0);
      none.timed(nanos, 1, Double.NaN);
    }

    assertThat(one.rateVariation()).isPositive();
    assertThat(belowOne.rateVariation()).isEqualTo(one.rateVariation());
    assertThat(none.rateVariation()).isZero();
  }

  @Test
  void runningPermitsAddTheirElapsedTimePerUnit() {
    long origin = 1_000_000;
    LimiterStats stats = new LimiterStats(origin);
    assertThat(stats.runningElapsedNanos(origin + 500)).as("none running").isZero();

    stats.started(origin + 100, 1);
    stats.started(origin + 200, 2);

    // at origin + 1,000: 900 for the first, 800 / 2 for the second
    assertThat(stats.runningTimed()).isEqualTo(2);
    assertThat(stats.runningElapsedNanos(origin + 1_000)).isCloseTo(1_300, within(EXACT));

    stats.ended(origin + 200, 2);
    assertThat(stats.runningTimed()).isEqualTo(1);
    assertThat(stats.runningElapsedNanos(origin + 1_000)).isCloseTo(900, within(EXACT));

    stats.ended(origin + 100, 1);
    assertThat(stats.runningTimed()).isZero();
    assertThat(stats.runningElapsedNanos(origin + 5_000)).isZero();
  }

  @Test
  void theServiceTotalIsExactWhenEveryReleaseWasTimedAndScaledUpOtherwise() {
    assertThat(LimiterStats.serviceTotal(10, 10, 1_000)).isEqualTo(1_000);
    assertThat(LimiterStats.serviceTotal(10, 0, 0)).as("nothing timed").isZero();
    assertThat(LimiterStats.serviceTotal(10, 4, 1_000))
        .as("250 each, 10 released")
        .isEqualTo(2_500);
    assertThat(LimiterStats.serviceTotal(Long.MAX_VALUE, 1, Long.MAX_VALUE / 2))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anExactTotalStaysExactPastWhatADoubleHolds() {
    // 2^53 + 1 ns (about 104 days of summed service): a double would round it to 2^53
    long total = (1L << 53) + 1;

    assertThat(LimiterStats.serviceTotal(1, 1, total)).isEqualTo(total);
    assertThat(LimiterStats.serviceTotal(3, 3, total)).isEqualTo(total);
  }

  @Test
  void instantServiceTimesSampleNoTurnoverRate() {
    LimiterStats stats = new LimiterStats();
    for (int i = 0; i < 12; i++) {
      stats.timed(0, 1, 4.0); // a rate of 4 / 0 would poison every later sample
    }
    assertThat(stats.rateVariation()).isZero();

    stats.timed(100, 1, 4.0); // recent service 10: the first rate, 4 / 10
    stats.timed(100, 1, 4.0); // recent service 19: rate 4 / 19

    double first = 4.0 / 10;
    double diff = 4.0 / 19 - first;
    double mean = first + 0.1 * diff;
    double variance = 0.9 * (0.1 * diff * diff);
    assertThat(stats.rateVariation()).isCloseTo(Math.sqrt(variance) / mean, within(EXACT));
  }

  @Test
  void retryAfterIsTheMeanServiceTimeForEachCallerAheadAndThisOneOverTheLimit() {
    LimiterStats stats = new LimiterStats();
    assertThat(stats.retryAfterNanos(3, 2, 1_000))
        .as("nothing known: the fallback")
        .isEqualTo(1_000 * 4 / 2);

    stats.seed(500);
    assertThat(stats.seedNanos()).isEqualTo(500);
    assertThat(stats.retryAfterNanos(3, 2, 1_000))
        .as("the expected service time")
        .isEqualTo(500 * 4 / 2);

    stats.timed(300);
    assertThat(stats.retryAfterNanos(3, 2, 1_000)).as("measured").isEqualTo(300 * 4 / 2);
    assertThat(stats.retryAfterNanos(0, 0, 1_000))
        .as("a limit of 0 counts as 1")
        .isEqualTo(300);
    assertThat(stats.retryAfterNanos(Integer.MAX_VALUE, 1, Long.MAX_VALUE / 4))
        .isEqualTo(300L * (Integer.MAX_VALUE + 1L));

    LimiterStats huge = new LimiterStats();
    assertThat(huge.retryAfterNanos(Integer.MAX_VALUE, 1, Long.MAX_VALUE / 2))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void anExpectedServiceTimeOfZeroOrLessIsNone() {
    LimiterStats stats = new LimiterStats();
    stats.seed(500);
    stats.seed(0);

    assertThat(stats.seedNanos()).isNaN();
    assertThat(stats.retryAfterNanos(0, 1, 700)).isEqualTo(700);
  }

  @Test
  void eachRejectionIsCountedUnderItsOutcomeAndItsFinerReason() {
    LimiterStats stats = new LimiterStats();
    stats.rejected(Outcome.QUEUE_FULL);
    stats.rejected(Outcome.QUEUE_TIMEOUT);
    stats.rejected(Outcome.QUEUE_TIMEOUT);
    stats.rejected(Outcome.CANCELLED);
    stats.rejected(Outcome.SHUTDOWN);
    stats.rejectedFor(RejectionReason.KEY_CAP);
    stats.rejectedFor(RejectionReason.DISPLACED);
    stats.rejectedFor(RejectionReason.PREDICTED_WAIT);
    stats.rejectedFor(RejectionReason.STANDING_QUEUE);
    stats.rejectedFor(RejectionReason.STANDING_QUEUE);

    assertThat(stats.rejectedQueueFull.sum()).isEqualTo(1);
    assertThat(stats.rejectedQueueTimeout.sum()).isEqualTo(2);
    assertThat(stats.cancelled.sum()).isEqualTo(1);
    assertThat(stats.rejectedShutdown.sum()).isEqualTo(1);
    assertThat(stats.rejectedKeyCap.sum()).isEqualTo(1);
    assertThat(stats.displaced.sum()).isEqualTo(1);
    assertThat(stats.predictedWait.sum()).isEqualTo(1);
    assertThat(stats.standingQueue.sum()).isEqualTo(2);
    assertThatThrownBy(() -> stats.rejected(Outcome.ADMITTED))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("not a rejection: ADMITTED");
  }

  @Test
  void queueWaitsAreCountedSummedAndTheLongestKept() {
    LimiterStats stats = new LimiterStats();
    stats.leftQueue(300);
    stats.leftQueue(100);

    assertThat(stats.queueWaitCount.sum()).isEqualTo(2);
    assertThat(stats.queueWaitTotal.sum()).isEqualTo(400);
    assertThat(stats.queueWaitMax.get()).isEqualTo(300);
  }
}
