package dev.sluice.concurrency.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The wait prediction's figures worked out by hand from given statistics: the service time's lower
 * bound, what is left of the running jobs' first turn, and the wait of a caller behind others.
 */
class WaitPredictionTest {

  private static final long ORIGIN = 1_000;

  private final LimiterStats stats = new LimiterStats(ORIGIN);
  private final WaitPrediction prediction = new WaitPrediction(stats);

  @Test
  void nothingTimedNothingRunningAndNoHintIsNoPrediction() {
    assertThat(prediction.serviceBoundNanos(ORIGIN + 500)).isEqualTo(-1);
  }

  @Test
  void theBoundPoolsThePriorSpreadWithTheSpreadOfTheJobsTimed() {
    stats.timed(100);
    stats.timed(300);

    // recent mean 200; observed spread 0.5 (sample variance 20,000 / 200^2); pooled with the prior
    // spread 1 worth two samples: (2 x 1 + (2 - 1) x 0.5) / (2 + 2 - 1) = 5/6; so the bound is
    // 2 x 200 / (2 + 5/6 + 2 sqrt(5/6) sqrt(2 + 5/6)) = 67.7
    assertThat(prediction.serviceBoundNanos(ORIGIN)).isEqualTo(67);
  }

  @Test
  void noSamplesBoundNothing() {
    assertThat(WaitPrediction.bound(0, 500, 1)).isZero();
    assertThat(WaitPrediction.bound(2, 0, 1)).isZero();
  }

  @Test
  void withNoRunningJobTheFirstTurnIsAWholeServiceTime() {
    assertThat(prediction.firstTurnNanos(ORIGIN + 300, 1_000)).isEqualTo(1_000);
  }

  @Test
  void theFirstTurnIsTheServiceTimeLessWhatTheRunningJobsRanOnAverage() {
    stats.started(ORIGIN, 1);
    stats.started(ORIGIN + 200, 1);

    // they ran 400 and 200, 300 on average: 700 of 1,000 left
    assertThat(prediction.firstTurnNanos(ORIGIN + 400, 1_000)).isEqualTo(700);
  }

  @Test
  void aCallerOfOneUnitBehindOthersWaitsForThemAndItsOwnTurnSharedByTheLimit() {
    // 3 ahead and itself at 100 each, two at a time
    assertThat(WaitPrediction.waitNanos(3, 2, 100)).isEqualTo(200);
  }
}
