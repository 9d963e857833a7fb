package dev.sluice.concurrency.limit;

import java.lang.management.ManagementFactory;

/** {@link CpuSampler#machine()}: the JVM's container-aware machine CPU load. */
final class MachineCpuSampler implements CpuSampler {

  /** Null on a JVM without the {@code com.sun.management} extension. */
  private final com.sun.management.OperatingSystemMXBean os;

  MachineCpuSampler() {
    this.os = osBean();
  }

  /** The JVM's extended OS bean, or null on a JVM without {@code com.sun.management}. */
  static com.sun.management.OperatingSystemMXBean osBean() {
    return ManagementFactory.getOperatingSystemMXBean()
            instanceof com.sun.management.OperatingSystemMXBean bean
        ? bean
        : null;
  }

  @Override
  public double sample() {
    if (os == null) {
      return Double.NaN;
    }
    double load = os.getCpuLoad(); // negative: not available yet (the first call) or at all
    return load < 0 ? Double.NaN : Math.min(1.0, load);
  }

  @Override
  public String toString() {
    return "machine";
  }
}
