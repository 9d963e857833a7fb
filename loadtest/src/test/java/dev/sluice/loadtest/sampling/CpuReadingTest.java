package dev.sluice.loadtest.sampling;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The service's CPU: from its CPU-time counter over an interval, and from its threads in /proc. */
class CpuReadingTest {

  @Test
  void processCpuIsTheCounterDifferenceOverTheIntervalOnAllCores() {
    ServiceCpu cpu = new ServiceCpu();
    assertThat(cpu.percent(1e9, 0, 2, 55)).isEqualTo(55); // no interval yet: the gauge
    assertThat(cpu.percent(1.7e9, 500_000_000L, 2, 99)).isCloseTo(70, within(1e-9));
    assertThat(cpu.percent(Double.NaN, 1_000_000_000L, 2, 42)).isEqualTo(42); // not exported
  }

  @Test
  void cpuTimeIsUserPlusSystemTicksOfProcStatEvenWithSpacesInTheCommandName() {
    String stat = "4242 (java main) S 1 4242 4242 0 -1 4194560 1000 0 0 0 250 75 0 0 20 0 40 0";
    assertThat(ProcessCpu.fromStat(stat)).isEqualTo((250 + 75) * 10_000_000L);
    assertThat(ProcessCpu.nanos(ProcessHandle.current().pid())).isPositive();
    assertThat(ProcessCpu.isCompiler("77 (C2 CompilerThre) S 1 2")).isTrue();
    assertThat(ProcessCpu.isCompiler("78 (C1 CompilerThre) S 1 2")).isTrue();
    assertThat(ProcessCpu.isCompiler("79 (qtp12345-31) S 1 2")).isFalse();
    assertThat(ProcessCpu.isCompiler("80 (GC Thread#0) S 1 2")).isFalse();
  }

  @Test
  void theTimeOfAThreadThatHasEndedStaysInTheProcesssCpu() throws InterruptedException {
    long before = ProcessCpu.nanos(ProcessHandle.current().pid());
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    long[] burned = new long[1];
    Thread worker = new Thread(() -> {
      long sink = 0;
      while (threads.getCurrentThreadCpuTime() < 300_000_000L) { // CPU time, not wall time
        sink += System.nanoTime() % 7;
      }
      burned[0] = sink;
    });
    worker.start();
    worker.join();
    assertThat(burned[0]).isNotNegative();
    // the worker is gone from /proc/<pid>/task; a sum over the live threads would lose its 300 ms
    assertThat(ProcessCpu.nanos(ProcessHandle.current().pid()) - before)
        .isGreaterThanOrEqualTo(250_000_000L);
  }
}
