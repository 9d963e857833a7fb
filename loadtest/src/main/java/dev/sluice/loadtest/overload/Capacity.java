package dev.sluice.loadtest.overload;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
 * @param framesPerMilli the work per millisecond of a job the capacity service calibrated, given
 *     to every variant's service so each does the same work per job; NaN when not known (each
 *     then calibrates its own, which varies by up to a third from one start to the next)
 */
public record Capacity(
    String kind,
    int cores,
    double measuredPerSecond,
    double derivedPerSecond,
    double unloadedP50Millis,
    double unloadedP99Millis,
    int unloadedJobs,
    double framesPerMilli) {

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
        0,
        Double.NaN);
  }

  /** This capacity, with the calibration of the service it was measured on. */
  Capacity withFramesPerMilli(double rate) {
    return new Capacity(
        kind,
        cores,
        measuredPerSecond,
        derivedPerSecond,
        unloadedP50Millis,
        unloadedP99Millis,
        unloadedJobs,
        rate);
  }

  /**
   * The {@code -D} property that gives a variant's service the capacity service's work per job,
   * if known.
   */
  Optional<String> sameWorkProperty() {
    return framesPerMilli > 0
        ? Optional.of(FRAMES_PER_MILLI + "=" + framesPerMilli)
        : Optional.empty();
  }

  /** The demo's key for a fixed work rate. */
  static final String FRAMES_PER_MILLI = "demo.frames-per-milli";

  private static final Pattern CALIBRATED =
      Pattern.compile("frames \\(([0-9]+(?:\\.[0-9]+)?) frames/ms calibrated\\)");

  /** The rate a demo's start-up log says it calibrated, or NaN (an older demo, another engine). */
  static double calibratedRate(String log) {
    Matcher m = CALIBRATED.matcher(log);
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
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
