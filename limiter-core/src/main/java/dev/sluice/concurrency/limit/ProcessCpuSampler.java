package dev.sluice.concurrency.limit;

/**
 * {@link CpuSampler#process()}: this process's CPU time since the previous read / (cores x wall
 * time since then). Read from one thread at a time (the limit's controller tick); the monitor only
 * keeps a stray second caller from tearing the pair of previous readings.
 */
final class ProcessCpuSampler implements CpuSampler {

  /** Null on a JVM without the {@code com.sun.management} extension. */
  private final com.sun.management.OperatingSystemMXBean os;

  private long lastCpuNanos = -1;
  private long lastWallNanos;

  ProcessCpuSampler() {
    this.os = MachineCpuSampler.osBean();
  }

  @Override
  public synchronized double sample() {
    long cpu = os == null ? -1 : os.getProcessCpuTime();
    long wall = System.nanoTime();
    if (cpu < 0) {
      return Double.NaN;
    }
    long previousCpu = lastCpuNanos;
    long previousWall = lastWallNanos;
    lastCpuNanos = cpu;
    lastWallNanos = wall;
    long elapsed = wall - previousWall;
    if (previousCpu < 0 || elapsed <= 0) {
      return Double.NaN; // the first read only sets the baseline
    }
    double cores = Runtime.getRuntime().availableProcessors();
    return Math.max(0.0, Math.min(1.0, (cpu - previousCpu) / (cores * elapsed)));
  }

  @Override
  public String toString() {
    return "process";
  }
}
