package dev.sluice.concurrency.limit;

import dev.sluice.time.NanoClock;
import java.lang.management.ManagementFactory;

/**
 * A CPU utilisation signal that any number of readers share without disturbing each other: every
 * {@link #newSampler() sampler} measures over its own interval, from its previous read to now.
 *
 * <p><b>Why shared.</b> The JDK's {@code OperatingSystemMXBean.getCpuLoad()} answers the load
 * since the previous call <em>by anyone in the JVM</em>. Two CPU limits, or a CPU limit and a page
 * that shows "CPU now", each calling it would shorten the other's interval (a page polled once a
 * second turned the controller's 100 ms sample into a few milliseconds, and read 100% on an idle
 * machine). So {@link #machine()} is the only caller of {@code getCpuLoad()} in the JVM: it
 * integrates each answer into a running total of busy time, and readers take differences of that
 * total, as they would of a cumulative counter such as the process's CPU time.
 *
 * <p>Tests implement this interface to drive a CPU limit from a simulated machine.
 */
public interface CpuSignal {

  /**
   * Cumulative totals since an arbitrary origin: {@code busyNanos} is utilisation (0 to 1)
   * integrated over {@code measuredNanos}, the time during which the signal could be measured.
   * Both only grow.
   */
  record Reading(double busyNanos, long measuredNanos) {}

  /** The totals now. Thread-safe; cheap enough for a controller tick. */
  Reading read();

  /**
   * A sampler whose every {@link CpuSampler#sample()} covers the time since its own previous one
   * ({@link Double#NaN} on the first call, or when nothing could be measured). One per reader.
   */
  default CpuSampler newSampler() {
    return new CpuSampler() {
      private Reading last;

      @Override
      public synchronized double sample() {
        Reading now = read();
        Reading before = last;
        last = now;
        if (before == null || now.measuredNanos() <= before.measuredNanos()) {
          return Double.NaN;
        }
        double busy =
            (now.busyNanos() - before.busyNanos()) / (now.measuredNanos() - before.measuredNanos());
        return Math.max(0.0, Math.min(1.0, busy));
      }

      @Override
      public String toString() {
        return CpuSignal.this.toString();
      }
    };
  }

  /**
   * The whole machine's CPU as the JVM sees it ({@code getCpuLoad()}, which inside a container
   * reads the container's cgroup usage against its CPU quota): includes other processes, which is
   * what "keep the node at 70%" means. One per JVM.
   */
  static CpuSignal machine() {
    return SharedCpuSignal.MACHINE;
  }

  /**
   * This process's CPU time / (cores x wall time), cores being {@link
   * Runtime#availableProcessors()} (container-aware). Ignores neighbours. One per JVM.
   */
  static CpuSignal process() {
    return SharedCpuSignal.PROCESS;
  }

  /** The JVM's extended OS bean, or null on a JVM without {@code com.sun.management}. */
  private static com.sun.management.OperatingSystemMXBean osBean() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean bean
        ? bean
        : null;
  }

  /** The machine's load as totals, or null on a JVM without {@code com.sun.management}. */
  private static LoadTotals machineLoad() {
    com.sun.management.OperatingSystemMXBean os = osBean();
    // getCpuLoad() measures since its previous call: these totals are its only caller
    return os == null ? null : new LoadTotals(os::getCpuLoad, NanoClock.system());
  }

  /** The two signals of this JVM. */
  // one per JVM on purpose: the machine's load is read by one caller (getCpuLoad() measures since
  // its previous call), so its running totals live in the singleton, behind LoadTotals' lock
  @SuppressWarnings("ImmutableEnumChecker")
  enum SharedCpuSignal implements CpuSignal {
    MACHINE {
      private final LoadTotals totals = machineLoad();

      @Override
      public Reading read() {
        return totals == null ? new Reading(0, 0) : totals.read();
      }

      @Override
      public String toString() {
        return "machine";
      }
    },

    PROCESS {
      private final com.sun.management.OperatingSystemMXBean os = osBean();
      private final long origin = System.nanoTime();

      @Override
      public Reading read() {
        long cpu = os == null ? -1 : os.getProcessCpuTime();
        if (cpu < 0) {
          return new Reading(0, 0);
        }
        double cores = Runtime.getRuntime().availableProcessors();
        return new Reading(cpu / cores, System.nanoTime() - origin);
      }

      @Override
      public String toString() {
        return "process";
      }
    }
  }
}
