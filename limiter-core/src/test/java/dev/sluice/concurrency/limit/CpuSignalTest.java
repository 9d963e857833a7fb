package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import org.junit.jupiter.api.Test;

/**
 * {@link CpuSignal}: a sampler's share over its own interval, from a signal of given totals; and
 * the JVM's two real signals, whose totals only grow and never count more busy time than there
 * was time.
 */
class CpuSignalTest {

  private static final long SECOND = Duration.ofSeconds(1).toNanos();

  /** A signal that answers the totals it is given, in order. */
  private static final class GivenTotals implements CpuSignal {
    private final Deque<Reading> readings = new ArrayDeque<>();

    GivenTotals then(double busyNanos, long measuredNanos) {
      readings.add(new Reading(busyNanos, measuredNanos));
      return this;
    }

    @Override
    public Reading read() {
      return readings.remove();
    }

    @Override
    public String toString() {
      return "given";
    }
  }

  @Test
  void aSamplersFirstSampleIsUnknown() {
    CpuSampler sampler = new GivenTotals().then(0.5 * SECOND, SECOND).newSampler();

    assertThat(sampler.sample()).isNaN();
  }

  @Test
  void aSampleIsTheBusyTimeOverTheMeasuredTimeSinceTheSamplersPreviousOne() {
    CpuSampler sampler = new GivenTotals()
        .then(0.5 * SECOND, SECOND)
        .then(0.5 * SECOND + 0.3 * SECOND, 3 * SECOND)
        .then(0.8 * SECOND + 0.9 * SECOND, 4 * SECOND)
        .newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isCloseTo(0.15, within(1e-12));
    assertThat(sampler.sample()).isCloseTo(0.9, within(1e-12));
  }

  @Test
  void twoSamplersOfOneSignalEachMeasureTheirOwnInterval() {
    GivenTotals totals = new GivenTotals()
        .then(0, 0)
        .then(0, 0)
        .then(1.0 * SECOND, SECOND)
        .then(1.0 * SECOND, 2 * SECOND);
    CpuSampler controller = totals.newSampler();
    CpuSampler page = totals.newSampler();
    controller.sample();
    page.sample();

    assertThat(page.sample()).isCloseTo(1.0, within(1e-12));
    // the page's read in between did not shorten the controller's interval: 1 s of 2 s busy
    assertThat(controller.sample()).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void aSampleOverNoMeasuredTimeIsUnknown() {
    CpuSampler sampler =
        new GivenTotals().then(1.0 * SECOND, SECOND).then(1.0 * SECOND, SECOND).newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isNaN();
  }

  @Test
  void busyTimeReportedOverNoMeasuredTimeIsUnknownNotFullyBusy() {
    CpuSampler sampler =
        new GivenTotals().then(0, SECOND).then(0.5 * SECOND, SECOND).newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isNaN();
  }

  @Test
  void aSampleOverOneMeasuredNanosecondCounts() {
    CpuSampler sampler = new GivenTotals().then(0, SECOND).then(0.5, SECOND + 1).newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isCloseTo(0.5, within(1e-12));
  }

  @Test
  void aSampleIsNeverAboveOne() {
    CpuSampler sampler =
        new GivenTotals().then(0, 0).then(3.0 * SECOND, 2 * SECOND).newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isEqualTo(1.0);
  }

  @Test
  void aSampleIsNeverBelowZero() {
    CpuSampler sampler = new GivenTotals().then(1.0 * SECOND, 0).then(0, SECOND).newSampler();
    sampler.sample();

    assertThat(sampler.sample()).isEqualTo(0.0);
  }

  @Test
  void aSamplerIsNamedAfterItsSignal() {
    assertThat(new GivenTotals().newSampler()).hasToString("given");
    assertThat(CpuSignal.machine().newSampler()).hasToString("machine");
    assertThat(CpuSignal.process().newSampler()).hasToString("process");
  }

  @Test
  void theProcessSignalCountsThisProcessesCpuTimeSpreadOverEveryCore() {
    com.sun.management.OperatingSystemMXBean os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    double cores = Runtime.getRuntime().availableProcessors();

    long before = os.getProcessCpuTime();
    CpuSignal.Reading reading = CpuSignal.process().read();
    long after = os.getProcessCpuTime();

    assertThat(reading.busyNanos()).isBetween(before / cores, after / cores);
  }

  @Test
  void theProcessSignalMeasuresNoLongerThanTheJvmHasRunAndOnlyGrows() {
    CpuSignal.Reading first = CpuSignal.process().read();
    CpuSignal.Reading second = CpuSignal.process().read();
    long uptime =
        Duration.ofMillis(ManagementFactory.getRuntimeMXBean().getUptime() + 1).toNanos();

    assertThat(first.measuredNanos()).isBetween(0L, uptime);
    assertThat(second.measuredNanos()).isGreaterThanOrEqualTo(first.measuredNanos());
    assertThat(second.busyNanos()).isGreaterThanOrEqualTo(first.busyNanos());
  }

  @Test
  void theMachineSignalCountsBusyTimeWithinTheTimeItMeasured() {
    CpuSignal machine = CpuSignal.machine();
    long startWall = System.nanoTime();
    CpuSignal.Reading start = machine.read();

    // the JDK answers the load at most every 10 ms, and its first answer covers no known interval
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> machine.read().measuredNanos() > start.measuredNanos());
    CpuSignal.Reading end = machine.read();
    long endWall = System.nanoTime();

    long measured = end.measuredNanos() - start.measuredNanos();
    double busy = end.busyNanos() - start.busyNanos();
    assertThat(measured).isPositive();
    // at most the wall time between the reads, and the poll interval before the first
    assertThat(measured)
        .isLessThanOrEqualTo(endWall - startWall + Duration.ofMillis(10).toNanos());
    assertThat(busy).isBetween(0.0, (double) measured);
  }
}
