package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.loadtest.overload.StepRecovery.Reading;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Settling times after a step, from made-up series on a virtual timeline of seconds. */
class StepRecoveryTest {

  private static boolean cpuBand(double v) {
    return Math.abs(v - 70) <= 5;
  }

  private static List<Reading> series(double first, double... values) {
    List<Reading> series = new ArrayList<>();
    for (int i = 0; i < values.length; i++) {
      series.add(new Reading(first + i, values[i]));
    }
    return series;
  }

  @Test
  void settlesAtTheFirstReadingAfterWhichEveryReadingOfThePhaseIsInTheBand() {
    // step at 7 s; 7.01 covers mostly the second before it; from 8.01 to 13.01: out, in, out, in,
    // in, in (13.01 covers a second that began in the phase)
    List<Reading> cpu = series(1.01, 70, 70, 70, 70, 70, 70, 70, 99, 72, 90, 68, 71, 70, 40);

    assertThat(StepRecovery.settle(cpu, 7, 13, StepRecoveryTest::cpuBand).getAsDouble())
        .isCloseTo(4.01, within(1e-9));
  }

  @Test
  void onTwoSecondMeansAJobsShareOfASecondNoLongerDecides() {
    // 1-second readings swinging by a job's share around 70 after the step at 7 s: 64, 76, 66, 74
    // ... are out of a 5-point band every other second, so they never settle; their 2 s means do
    List<Reading> cpu = series(
        1.01, 70, 70, 70, 70, 70, 70, 70, 95, 88, 64, 76, 66, 74, 66, 74, 66, 74, 64, 70, 70);

    assertThat(StepRecovery.settle(cpu, 7, 18, StepRecoveryTest::cpuBand)).isEmpty();
    List<Reading> means = StepRecovery.means(cpu, 2);
    assertThat(means.get(0).at()).isEqualTo(2.01);
    assertThat(means.get(0).from()).isCloseTo(0.01, within(1e-9));
    // the first mean wholly after the step covers 7.01-9.01 (95, 88): out; then (88, 64) = 76:
    // out; from 11.01 on, 67 to 71
    assertThat(StepRecovery.settle(means, 7, 18, StepRecoveryTest::cpuBand).getAsDouble())
        .isCloseTo(4.01, within(1e-9));
  }

  @Test
  void aMeanSpansOnlyConsecutiveReadingsWithoutGaps() {
    List<Reading> cpu = new ArrayList<>(series(1, 60, 80));
    cpu.add(new Reading(5, 70)); // a missed sample: 3 s after the one before
    cpu.add(new Reading(6, Double.NaN));
    cpu.add(new Reading(7, 72));
    cpu.add(new Reading(8, 68));

    assertThat(StepRecovery.means(cpu, 2))
        .extracting(Reading::at, Reading::value)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple(2.0, 70.0),
            org.assertj.core.groups.Tuple.tuple(8.0, 70.0));
  }

  @Test
  void aSeriesInTheBandAtOnceSettlesAtItsFirstReadingAfterTheStep() {
    List<Reading> cpu = series(1.01, 70, 70, 70, 70, 70, 70, 70, 71, 69, 70);

    assertThat(StepRecovery.settle(cpu, 7, 13, StepRecoveryTest::cpuBand).getAsDouble())
        .isCloseTo(1.01, within(1e-9));
  }

  @Test
  void aSeriesOutOfTheBandAtTheEndOfThePhaseNeverSettled() {
    List<Reading> cpu = series(1.01, 70, 70, 70, 70, 70, 70, 70, 71, 69, 70, 70, 70, 99);

    assertThat(StepRecovery.settle(cpu, 7, 13, StepRecoveryTest::cpuBand)).isEmpty();
    assertThat(StepRecovery.settle(List.of(), 7, 13, StepRecoveryTest::cpuBand)).isEmpty();
  }

  @Test
  void gapsAreSkippedAndReadingsOutsideThePhaseIgnored() {
    // 14.01 covers a second that began after the phase: not counted
    List<Reading> cpu =
        series(1.01, 70, 70, 70, 70, 70, 70, 70, Double.NaN, 99, 70, Double.NaN, 70, 70, 10);

    assertThat(StepRecovery.settle(cpu, 7, 13, StepRecoveryTest::cpuBand).getAsDouble())
        .isCloseTo(3.01, within(1e-9));
  }

  @Test
  void admittedP99IsReadPerSecondOfSendingAtTheEndOfThatSecond() {
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      answers.add(
          new Answer("short", 3 + i / 100.0, 3 + i / 100.0 + (i == 99 ? 0.5 : 0.02), 200, null));
      answers.add(new Answer("short", 4 + i / 100.0, 4 + i / 100.0 + 0.9, 429, "queue_full"));
    }
    answers.add(new Answer("short", 5.5, 5.53, 200, null));

    List<Reading> p99 = StepRecovery.admittedP99PerSecond(answers);

    // second 3: 99 in 20 ms and one in 500 ms: the 99th is 20 ms; second 4 has no admitted job
    assertThat(p99).hasSize(2);
    assertThat(p99.get(0).at()).isEqualTo(4);
    assertThat(p99.get(0).value()).isCloseTo(20, within(1e-6));
    assertThat(p99.get(1).at()).isEqualTo(6);
    assertThat(p99.get(1).value()).isCloseTo(30, within(1e-6));
  }

  @Test
  void theStepLoadIsTheBaseThenTenTimesThenTheBaseAThirdEachOnWholeSeconds() {
    StepLoad load = StepLoad.thirds(92, 20);

    assertThat(load.upAt()).isEqualTo(7);
    assertThat(load.downAt()).isEqualTo(13);
    assertThat(load.rate(6.99)).isEqualTo(92);
    assertThat(load.rate(7)).isEqualTo(920);
    assertThat(load.rate(12.99)).isEqualTo(920);
    assertThat(load.rate(13)).isEqualTo(92);
    assertThat(load.peakRate()).isEqualTo(920);
  }
}
