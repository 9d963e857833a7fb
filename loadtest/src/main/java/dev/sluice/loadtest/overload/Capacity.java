package dev.sluice.loadtest.overload;

/**
 * What the service does for one kind of job when it is not overloaded, the yardstick of the sweep.
 *
 * @param kind job kind id
 * @param cores cores the service reported
 * @param measuredPerSecond jobs per second a closed loop got from the service with no limiter
 *     (about 100 % CPU), or NaN when the probe failed
 * @param derivedPerSecond {@code cores x 1000 / mean CPU ms} (the demo calibrates a job of N ms to
 *     N ms of CPU on an idle core)
 * @param unloadedP50Millis latency of one job at a time, median
 * @param unloadedP99Millis the same, 99th percentile (nearest rank)
 * @param unloadedJobs jobs behind the two latencies
 */
public record Capacity(
    String kind,
    int cores,
    double measuredPerSecond,
    double derivedPerSecond,
    double unloadedP50Millis,
    double unloadedP99Millis,
    int unloadedJobs) {

  /** The CPU target of every Sluice variant, as a share of the machine. */
  static final double TARGET_CPU = 0.7;

  static Capacity derived(JobKind kind, int cores) {
    return new Capacity(
        kind.id(),
        cores,
        Double.NaN,
        cores * 1000.0 / kind.meanCpuMillis(),
        Double.NaN,
        Double.NaN,
        0);
  }

  /** The capacity the sweep's multiples are of: the measured one, or the derived one without it. */
  double perSecond() {
    return measuredPerSecond > 0 ? measuredPerSecond : derivedPerSecond;
  }

  /** Whether {@link #perSecond()} was measured (else derived). */
  boolean measured() {
    return measuredPerSecond > 0;
  }

  /** Jobs per second offered at {@code point} times the capacity. */
  double offered(double point) {
    return point * perSecond();
  }

  /**
   * Jobs per second the service can complete with its CPU held at the 70 % target: the goodput a
   * limiter that meets its target can reach, and what goodput is judged against.
   */
  double atTarget() {
    return TARGET_CPU * perSecond();
  }
}
