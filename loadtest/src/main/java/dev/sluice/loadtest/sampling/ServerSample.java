package dev.sluice.loadtest.sampling;

import java.util.Map;

/**
 * What the server said about itself at one moment of the run.
 *
 * @param second seconds since the run started
 * @param processCpuPercent the service's process CPU, percent of the whole machine (NaN: unknown)
 * @param systemCpuPercent the whole machine's CPU, percent (NaN: unknown)
 * @param limiters in-flight and queued per limiter, from {@code /sluice}
 */
public record ServerSample(
    double second,
    double processCpuPercent,
    double systemCpuPercent,
    Map<String, LimiterLoad> limiters) {

  /** One limiter's state. */
  public record LimiterLoad(int inFlight, int queued, int limit) {}
}
