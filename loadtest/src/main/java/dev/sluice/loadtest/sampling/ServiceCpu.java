package dev.sluice.loadtest.sampling;

/**
 * The service's CPU over each interval between two samples, from its cumulative CPU time
 * ({@code process_cpu_time_ns_total}) rather than the {@code process_cpu_usage} gauge.
 *
 * <p>Why: the gauge is the JDK's {@code getProcessCpuLoad()}, which answers the load since the
 * previous call by anyone in the process. Once the service's own adaptive limiter samples it every
 * few hundred milliseconds, a once-a-second scrape sees only the last slice of its second, so the
 * gauge's spread says more about when the two readers met than about the CPU. The counter's
 * difference is exact over the interval (to its tick). The first sample, with nothing to subtract,
 * falls back to the gauge.
 */
final class ServiceCpu {

  private double lastCpuNanos = Double.NaN;
  private long lastWallNanos;

  /**
   *Returns percent of the whole machine since the previous reading.
   * @param cpuNanos the process's cumulative CPU time now (NaN: not exported)
   * @param wallNanos a monotonic time of the reading
   * @param cores the machine's cores as the service sees them
   * @param gauge the {@code process_cpu_usage} reading in percent, used when there is no interval
   *
   */
  double percent(double cpuNanos, long wallNanos, double cores, double gauge) {
    double previous = lastCpuNanos;
    long elapsed = wallNanos - lastWallNanos;
    lastCpuNanos = cpuNanos;
    lastWallNanos = wallNanos;
    if (Double.isNaN(cpuNanos)
        || Double.isNaN(previous)
        || elapsed <= 0
        || !(cores > 0)
        || cpuNanos < previous) {
      return gauge;
    }
    return 100 * (cpuNanos - previous) / (elapsed * cores);
  }
}
