package dev.sluice.concurrency.limit;

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

  /** The two signals of this JVM. */
  // one per JVM on purpose: the machine's load is read by one caller (getCpuLoad() measures since
  // its previous call), so its running totals live in the singleton, behind read()'s lock
  @SuppressWarnings("ImmutableEnumChecker")
  enum SharedCpuSignal implements CpuSignal {
    MACHINE {
      /** Polls closer than this return the totals of the previous poll (the JDK's own floor). */
      private static final long MIN_POLL_NANOS = 10_000_000;

      private final com.sun.management.OperatingSystemMXBean os = osBean();
      private double busy;
      private long measured;
      private long lastPoll = System.nanoTime();
      private boolean primed;

      @Override
      public synchronized Reading read() {
        long now = System.nanoTime();
        long elapsed = now - lastPoll;
        if (os != null && elapsed >= MIN_POLL_NANOS) {
          double load = os.getCpuLoad(); // since our previous call: we are its only caller
          lastPoll = now;
          if (!primed) {
            primed = true; // the first answer covers an unknown interval
          } else if (load >= 0) {
            busy += Math.min(1.0, load) * elapsed;
            measured += elapsed;
          }
        }
        return new Reading(busy, measured);
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
