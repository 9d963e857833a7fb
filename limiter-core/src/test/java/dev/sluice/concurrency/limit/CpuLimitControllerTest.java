package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.StubControl;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The CPU controller's arithmetic, one tick at a time on virtual time: the step {@code 1 + gain x
 * (target - cpu) / target}, the smoothing of the samples, the gain scaled down for long jobs, the
 * step's clamp, and the check that stops growth which buys no CPU (the class comment of {@link
 * CpuLimit}). The figures are worked out by hand from the documented constants.
 */
class CpuLimitControllerTest {

  private static final Duration TICK = CpuLimit.DEFAULT_TICK;
  private static final double TOLERANCE = 1e-9;

  private final StubControl control = new StubControl();
  private double cpu;

  private CpuLimit started(double target, int initial, int max) {
    CpuLimit limit = CpuLimit.builder()
        .targetCpu(target)
        .sampler(() -> cpu)
        .initialLimit(initial)
        .minLimit(1)
        .maxLimit(max)
        .build();
    limit.start(control);
    return limit;
  }

  private void tick() {
    control.time.advance(TICK);
  }

  @Test
  void oneTickUnderTheTargetMultipliesTheLimitByTheRelativeErrorTimesTheGain() {
    CpuLimit limit = started(0.7, 10, 100);
    control.queued = 1;
    cpu = 0.35;

    tick();

    // 1 + 0.15 x (0.7 - 0.35) / 0.7 = 1.075
    assertThat(limit.exactLimit()).isCloseTo(10.75, within(TOLERANCE));
  }

  @Test
  void oneTickOverTheTargetShrinksTheLimitAlikeAndAReadingAboveOneCountsAsOne() {
    CpuLimit limit = started(0.7, 10, 100);
    cpu = 1.4; // a sampler's rounding: read as 100%

    tick();

    // 1 + 0.15 x (0.7 - 1.0) / 0.7 = 0.935714...
    assertThat(limit.exactLimit()).isCloseTo(10 * (1 - 0.15 * 0.3 / 0.7), within(TOLERANCE));
  }

  @Test
  void eachSampleMovesTheSmoothedCpuHalfWayAndTheStepFollowsTheSmoothedValue() {
    CpuLimit limit = started(0.7, 10, 100);
    control.queued = 1;
    cpu = 0.7;
    tick();
    assertThat(limit.exactLimit()).as("at the target: no step").isCloseTo(10, within(TOLERANCE));
    assertThat(limit.state().cpu()).isCloseTo(0.7, within(TOLERANCE));

    cpu = 0.0;
    tick();

    // smoothed: 0.7 + 0.5 x (0 - 0.7) = 0.35, so the same step as a steady 0.35
    assertThat(limit.state().cpu()).isCloseTo(0.35, within(TOLERANCE));
    assertThat(limit.exactLimit()).isCloseTo(10.75, within(TOLERANCE));
  }

  @Test
  void theStepIsClampedToHalvingPerTickUnderAVeryLowTarget() {
    CpuLimit limit = started(0.05, 40, 100);
    cpu = 1.0; // 1 + 0.15 x (0.05 - 1) / 0.05 = -1.85 unclamped

    tick();

    assertThat(limit.exactLimit()).isCloseTo(20, within(TOLERANCE));
  }

  @Test
  void jobsLongerThanTheTunedServiceTimeScaleTheGainDownByTheirMean() {
    CpuLimit limit = started(0.7, 10, 100);
    assertThat(limit.gain()).as("no job finished yet").isEqualTo(CpuLimit.GAIN);
    limit.onSample(0, 1); // no service time: not counted
    assertThat(limit.gain()).isEqualTo(CpuLimit.GAIN);

    limit.onSample(Duration.ofMillis(3_200).toNanos(), 1);
    assertThat(limit.gain()).isCloseTo(0.15 * 800 / 3_200, within(TOLERANCE));

    // the mean moves a tenth of the way to each new job: 3.2 s + 0.1 x (1.6 s - 3.2 s) = 3.04 s
    limit.onSample(Duration.ofMillis(1_600).toNanos(), 1);
    assertThat(limit.gain()).isCloseTo(0.15 * 800 / 3_040, within(TOLERANCE));

    control.queued = 1;
    cpu = 0.35;
    tick();
    assertThat(limit.exactLimit())
        .isCloseTo(10 * (1 + 0.15 * 800 / 3_040 * 0.5), within(TOLERANCE));
  }

  @Test
  void shortJobsLeaveTheMeanWhereItStoodAndLongerOnesMoveItFromThere() {
    CpuLimit limit = started(0.7, 10, 100);
    limit.onSample(Duration.ofMillis(200).toNanos(), 1); // the first job is kept: mean 200 ms
    for (int i = 0; i < 50; i++) {
      limit.onSample(
          Duration.ofMillis(790).toNanos(), 1); // at or under 800 ms: the gain cannot move
    }
    assertThat(limit.gain()).isEqualTo(CpuLimit.GAIN);

    // from 200 ms, not from the 790 ms a mean of every job would near: 200 + 0.1 x 9,800 = 1,180 ms
    limit.onSample(Duration.ofSeconds(10).toNanos(), 1);
    assertThat(limit.gain()).isCloseTo(0.15 * 800 / 1_180, within(TOLERANCE));

    // above the tuned time every job counts, short ones too: 1,180 + 0.1 x (100 - 1,180) = 1,072
    limit.onSample(Duration.ofMillis(100).toNanos(), 1);
    assertThat(limit.gain()).isCloseTo(0.15 * 800 / 1_072, within(TOLERANCE));
  }

  @Test
  void aJobOfExactlyTheTunedTimeOrAMeanOfExactlyItCountsAsWithin() {
    CpuLimit fromShort = started(0.7, 10, 100);
    fromShort.onSample(Duration.ofMillis(200).toNanos(), 1);
    fromShort.onSample(Duration.ofMillis(800).toNanos(), 1); // within: the mean stays 200 ms
    fromShort.onSample(Duration.ofSeconds(10).toNanos(), 1); // 200 + 0.1 x 9,800 = 1,180 ms
    assertThat(fromShort.gain()).isCloseTo(0.15 * 800 / 1_180, within(TOLERANCE));

    CpuLimit fromTuned = started(0.7, 10, 100);
    fromTuned.onSample(Duration.ofMillis(800).toNanos(), 1); // the first: mean 800 ms
    fromTuned.onSample(Duration.ofMillis(100).toNanos(), 1); // within: the mean stays 800 ms
    fromTuned.onSample(Duration.ofSeconds(10).toNanos(), 1); // 800 + 0.1 x 9,200 = 1,720 ms
    assertThat(fromTuned.gain()).isCloseTo(0.15 * 800 / 1_720, within(TOLERANCE));
  }

  @Test
  void jobsShorterThanTheTunedServiceTimeKeepTheFullGain() {
    CpuLimit limit = started(0.7, 10, 100);

    limit.onSample(Duration.ofMillis(200).toNanos(), 1);

    assertThat(limit.gain()).isEqualTo(CpuLimit.GAIN);
  }

  @Test
  void everyPermitTakenCountsAsUseWithNobodyQueued() {
    CpuLimit limit = started(0.7, 10, 100);
    cpu = 0.35;
    control.inFlight = 9;
    tick();
    assertThat(limit.exactLimit()).as("a permit free, nobody queued").isEqualTo(10);

    control.inFlight = 10;
    tick();

    assertThat(limit.exactLimit()).isCloseTo(10.75, within(TOLERANCE));
  }

  @Test
  void growthThatBuysNoCpuStopsOnceThePermitsHeldHaveDoubled() {
    CpuLimit limit = started(0.7, 4, 1_000);
    cpu = 0.35; // flat: a neighbour holds the cores
    double[] history = new double[400];
    for (int i = 0; i < history.length; i++) {
      control.inFlight = (int) Math.floor(limit.exactLimit()); // every permit taken
      tick();
      history[i] = limit.exactLimit();
    }

    // the permits held average over about a second, so the limit runs ahead of them: it stops
    // after they have doubled from 4, well short of its ceiling, and stays
    assertThat(history[399]).isGreaterThan(8).isLessThan(40);
    assertThat(history[399]).isEqualTo(history[200]);
  }

  @Test
  void aRiseOfTheCpuAfterAStopLetsTheLimitGrowAgain() {
    CpuLimit limit = started(0.7, 4, 1_000);
    cpu = 0.35;
    for (int i = 0; i < 200; i++) {
      control.inFlight = (int) Math.floor(limit.exactLimit());
      tick();
    }
    double stopped = limit.exactLimit();

    cpu = 0.5; // a quarter of the gap and more: growth paid
    for (int i = 0; i < 30; i++) { // the slow average needs a second or two to show it
      control.inFlight = (int) Math.floor(limit.exactLimit());
      tick();
    }

    assertThat(limit.exactLimit()).isGreaterThan(stopped);
  }

  @Test
  void growthThatRaisesTheCpuInProportionIsNeverStopped() {
    CpuLimit limit = started(0.7, 4, 1_000);
    for (int i = 0; i < 200; i++) {
      int held = (int) Math.floor(limit.exactLimit());
      control.inFlight = held;
      cpu = Math.min(0.65, 0.05 * held); // CPU-bound jobs, 5% each, short of the target
      tick();
    }

    // 13 jobs reach 65%; only then does the limit stop growing
    assertThat(limit.exactLimit()).isGreaterThanOrEqualTo(13);
  }

  @Test
  void callersWaitingWhilePermitsAreFreeAreNotJudgedAndTheLimitWindsUp() {
    // with declared costs the head's cost may exceed the free units: growth is not judged then
    CpuLimit limit = started(0.7, 4, 60);
    cpu = 0.35;
    control.queued = 1;
    control.inFlight = 0;

    for (int i = 0; i < 200; i++) {
      tick();
    }

    assertThat(limit.exactLimit()).isEqualTo(60);
  }

  /**
   * Growth judged at exact points: the averages of the CPU and of the permits held move a tenth of
   * the way to each tick's value, so the test picks each tick's readings to put them where it
   * wants. Every permit is taken throughout (the held count is far above the limit).
   */
  private final class Judged {
    private final CpuLimit limit = started(0.7, 1, 1_000);
    private double slowHeld = Double.NaN;
    private double smoothedCpu = Double.NaN;
    private double slowCpu = Double.NaN;

    /** One tick after which the slow averages are {@code held} and {@code cpuAverage}. */
    boolean grows(double held, double cpuAverage) {
      double before = limit.exactLimit();
      if (Double.isNaN(slowHeld)) {
        control.inFlight = (int) held;
        cpu = cpuAverage;
        smoothedCpu = cpuAverage;
      } else {
        control.inFlight =
            (int) Math.round(slowHeld + (held - slowHeld) / CpuLimit.RESPONSE_WEIGHT);
        double smoothed = slowCpu + (cpuAverage - slowCpu) / CpuLimit.RESPONSE_WEIGHT;
        cpu = smoothedCpu + (smoothed - smoothedCpu) / CpuLimit.SMOOTHING;
        smoothedCpu = smoothed;
      }
      slowHeld = held;
      slowCpu = cpuAverage;
      tick();
      return limit.exactLimit() > before;
    }

    /**
     * Four ticks moving the averages evenly to {@code held} and {@code cpuAverage} (a jump in one
     * tick would need a reading outside 0..1); whether the last one grew the limit.
     */
    boolean growsOnTheWayTo(double held, double cpuAverage) {
      double heldFrom = slowHeld;
      double cpuFrom = slowCpu;
      for (int i = 1; i < 4; i++) {
        grows(heldFrom + (held - heldFrom) * i / 4, cpuFrom + (cpuAverage - cpuFrom) * i / 4);
      }
      return grows(held, cpuAverage);
    }
  }

  @Test
  void growthIsJudgedOnlyOnceThePermitsHeldHaveDoubledAndAtLeastTwoMore() {
    Judged four = new Judged();
    assertThat(four.grows(4, 0.3)).as("the start of a growth").isTrue();
    assertThat(four.grows(7, 0.3)).as("7 held: short of twice 4").isTrue();
    assertThat(four.grows(8, 0.3))
        .as("8 held, the CPU flat: growth bought nothing")
        .isFalse();

    Judged one = new Judged();
    assertThat(one.grows(1, 0.3)).isTrue();
    assertThat(one.grows(2.5, 0.3)).as("2.5 held: short of 1 + 2").isTrue();
    assertThat(one.grows(3, 0.3)).as("3 held: judged").isFalse();
  }

  @Test
  void growthPaysWhenTheCpuRoseByAQuarterOfThePermitsRelativeRise() {
    Judged proportional = new Judged();
    proportional.grows(4, 0.2);
    // the permits held doubled (+100%): the CPU must rise by 25% of itself, to 0.25
    assertThat(proportional.growsOnTheWayTo(8, 0.26)).isTrue();

    Judged tooLittle = new Judged();
    tooLittle.grows(4, 0.2);
    assertThat(tooLittle.growsOnTheWayTo(8, 0.24))
        .as("+20%, and 0.04 is short of a quarter of the gap")
        .isFalse();
  }

  @Test
  void growthPaysWhenTheCpuCoveredAQuarterOfItsGapToTheTarget() {
    // a neighbour's share in the machine's CPU dilutes the relative rise: 0.5 -> 0.56 is +12%
    // for +100% permits, but 0.06 is more than a quarter of the gap 0.2
    Judged diluted = new Judged();
    diluted.grows(4, 0.5);
    assertThat(diluted.growsOnTheWayTo(8, 0.56)).isTrue();

    Judged tooLittle = new Judged();
    tooLittle.grows(4, 0.5);
    assertThat(tooLittle.growsOnTheWayTo(8, 0.54))
        .as("+8% and 0.04 of a 0.2 gap")
        .isFalse();
  }

  @Test
  void afterGrowthPaidTheNextDoublingIsJudgedFromThere() {
    Judged paid = new Judged();
    paid.grows(4, 0.2);
    assertThat(paid.growsOnTheWayTo(8, 0.3)).isTrue();
    // judged from 8 held now: 12 is short of 16, so it grows whatever the CPU does
    assertThat(paid.grows(12, 0.3)).isTrue();
    assertThat(paid.grows(16, 0.3)).isFalse();
  }

  @Test
  void theTargetAndTheDefaultsAreWhatTheBuilderSays() {
    CpuLimit limit = CpuLimit.builder().targetCpu(0.9).sampler(() -> cpu).build();

    assertThat(limit.targetCpu()).isEqualTo(0.9);
    assertThat(limit.limit()).isEqualTo((int)
        Math.max(1, Math.round(0.9 * Runtime.getRuntime().availableProcessors())));
    assertThat(CpuLimit.builder().sampler(() -> cpu).build().targetCpu())
        .isEqualTo(CpuLimit.DEFAULT_TARGET_CPU);
    assertThat(limit.toString()).startsWith("CpuLimit[target=0.9, sampler=");
  }

  @Test
  void theTargetMustLieStrictlyBetweenZeroAndOne() {
    assertThatThrownBy(() -> CpuLimit.builder().targetCpu(0.0))
        .hasMessage("targetCpu must be > 0 and < 1 but was 0.0");
    assertThat(CpuLimit.builder().targetCpu(Double.MIN_VALUE)).isNotNull();
    assertThat(CpuLimit.builder().targetCpu(Math.nextDown(1.0))).isNotNull();
  }
}
