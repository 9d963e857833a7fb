package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/**
 * {@link LoadTotals}: a load answered "since the previous call" becomes running totals of busy and
 * measured time, polled at most every 10 ms, on a virtual clock.
 */
class LoadTotalsTest {

  private static final long MS = Duration.ofMillis(1).toNanos();

  private final VirtualTime time = new VirtualTime();
  private final Deque<Double> loads = new ArrayDeque<>();
  private int polls;
  private final LoadTotals totals = new LoadTotals(
      () -> {
        polls++;
        return loads.remove();
      },
      time);

  private LoadTotalsTest answers(double... load) {
    for (double l : load) {
      loads.add(l);
    }
    return this;
  }

  @Test
  void beforeAnyPollTheTotalsAreZero() {
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(0, 0));
    assertThat(polls).isZero();
  }

  @Test
  void theFirstAnswerCoversAnUnknownIntervalAndCountsNothing() {
    answers(0.5, 0.25);
    time.advanceNanos(10 * MS);

    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(0, 0));

    time.advanceNanos(20 * MS);
    // a quarter of the 20 ms since the first poll
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(5 * MS, 20 * MS));
    assertThat(polls).isEqualTo(2);
  }

  @Test
  void aReadWithinTenMillisecondsOfThePollAnswersThePreviousTotalsWithoutPolling() {
    answers(0.0, 1.0);
    time.advanceNanos(10 * MS);
    totals.read(); // primes

    time.advanceNanos(10 * MS - 1);
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(0, 0));
    assertThat(polls).isEqualTo(1);

    time.advanceNanos(1);
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(10 * MS, 10 * MS));
    assertThat(polls).isEqualTo(2);
  }

  @Test
  void eachAnswerIsWeightedByTheTimeSinceThePreviousPollNotThePreviousRead() {
    answers(0.0, 0.5, 1.0);
    time.advanceNanos(10 * MS);
    totals.read();
    time.advanceNanos(40 * MS);
    totals.read(); // 0.5 x 40 ms
    time.advanceNanos(5 * MS);
    totals.read(); // too soon: no poll
    time.advanceNanos(10 * MS);

    // 1.0 over the 15 ms since the last poll
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(35 * MS, 55 * MS));
  }

  @Test
  void anIdleIntervalCountsAsMeasuredButNotBusy() {
    answers(0.5, 0.0);
    time.advanceNanos(10 * MS);
    totals.read();
    time.advanceNanos(30 * MS);

    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(0, 30 * MS));
  }

  @Test
  void anIntervalThatCouldNotBeMeasuredCountsNeitherBusyNorMeasured() {
    answers(0.5, -1.0, 0.5);
    time.advanceNanos(10 * MS);
    totals.read();
    time.advanceNanos(30 * MS);
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(0, 0));
    time.advanceNanos(20 * MS);

    // only the 20 ms after the unknown interval
    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(10 * MS, 20 * MS));
  }

  @Test
  void aLoadAboveOneCountsAsFullyBusy() {
    answers(0.5, 1.5);
    time.advanceNanos(10 * MS);
    totals.read();
    time.advanceNanos(10 * MS);

    assertThat(totals.read()).isEqualTo(new CpuSignal.Reading(10 * MS, 10 * MS));
  }
}
