package dev.sluice.loadtest.monday;

import dev.sluice.loadtest.monday.MondayTally.Kind;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One variant's figures over the window (what {@code summary.json} holds per variant).
 *
 * @param variant its name
 * @param description what it sets
 * @param error why it did not run, or null
 * @param windowSeconds how long the jobs were sent
 * @param cpuMean the machine's CPU, mean percent over the window
 * @param secondsAbove90 time the machine spent above 90 %
 * @param longestAbove95 the longest stretch above 95 %, seconds
 * @param worst10sAfter30 the highest 10-second mean after the first 30 s (NaN: a shorter run)
 * @param completed re-transcodes answered 200 inside the window
 * @param perMinute re-transcodes completed in each minute of the window (the last may be partial)
 * @param jobsPerMinute {@code completed} over the window's minutes
 * @param rescueJobs rescue jobs started
 * @param rescueServed rescue jobs answered 200 (at most 3 tries each)
 * @param rescueWaitP50 the served rescue jobs' wait in the service's queue, median, ms
 * @param rescueWaitMax the same, the longest
 * @param historyLookups history lookups ended (answered or not)
 * @param historyP99 their time from due to end, p99, ms
 * @param tries429 tries of every kind answered 429
 * @param tries504 tries of every kind answered 504
 * @param tries every try's outcome per kind of traffic
 * @param loadBefore {@code /proc/loadavg} before
 * @param loadAfter and after
 * @param cpu {@code [second, percent]} per reading
 * @param limits {@code [second, limit]} of the transcode limiter, per reading
 */
public record MondayResult(
    String variant,
    String description,
    String error,
    double windowSeconds,
    double cpuMean,
    double secondsAbove90,
    double longestAbove95,
    double worst10sAfter30,
    long completed,
    List<Long> perMinute,
    double jobsPerMinute,
    long rescueJobs,
    long rescueServed,
    double rescueWaitP50,
    double rescueWaitMax,
    long historyLookups,
    double historyP99,
    long tries429,
    long tries504,
    Map<String, Map<String, Long>> tries,
    String loadBefore,
    String loadAfter,
    List<double[]> cpu,
    List<double[]> limits) {

  /** The figures of a run that happened. */
  static MondayResult of(
      MondayVariant variant,
      double windowSeconds,
      MondayTally tally,
      CpuTrace trace,
      List<double[]> limits,
      String loadBefore,
      String loadAfter) {
    List<Double> done =
        tally.completions().stream().filter(s -> s <= windowSeconds).toList();
    Map<String, Map<String, Long>> tries = new LinkedHashMap<>();
    for (Kind kind : Kind.values()) {
      tries.put(kind.name().toLowerCase(java.util.Locale.ROOT), tally.tries(kind));
    }
    List<double[]> cpu = trace.samples().stream()
        .map(s -> new double[] {s.endSecond(), s.percent()})
        .toList();
    return new MondayResult(
        variant.name(),
        variant.description(),
        null,
        windowSeconds,
        trace.mean(),
        trace.secondsAbove(90),
        trace.longestAbove(95),
        trace.worstWindow(10, 30),
        done.size(),
        perMinute(done, windowSeconds),
        done.size() * 60.0 / windowSeconds,
        tally.rescueJobs(),
        tally.rescueServed(),
        percentile(tally.rescueWaitMillis(), 50),
        percentile(tally.rescueWaitMillis(), 100),
        tally.historyMillis().size(),
        percentile(tally.historyMillis(), 99),
        tally.count("429"),
        tally.count("504"),
        tries,
        loadBefore,
        loadAfter,
        cpu,
        limits);
  }

  /** A variant that did not run, and why. */
  static MondayResult failed(
      MondayVariant variant, double windowSeconds, String why, String loadBefore) {
    return new MondayResult(
        variant.name(),
        variant.description(),
        why,
        windowSeconds,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        0,
        List.of(),
        Double.NaN,
        0,
        0,
        Double.NaN,
        Double.NaN,
        0,
        Double.NaN,
        0,
        0,
        Map.of(),
        loadBefore,
        loadBefore,
        List.of(),
        List.of());
  }

  /** Completions per minute of the window, from their seconds; the last minute may be partial. */
  static List<Long> perMinute(List<Double> seconds, double windowSeconds) {
    int minutes = Math.max(1, (int) Math.ceil(windowSeconds / 60 - 1e-9));
    long[] counts = new long[minutes];
    for (double s : seconds) {
      if (s >= 0 && s <= windowSeconds) {
        counts[Math.min(minutes - 1, (int) (s / 60))]++;
      }
    }
    List<Long> list = new ArrayList<>();
    for (long c : counts) {
      list.add(c);
    }
    return list;
  }

  /** Nearest rank; 100 is the largest; NaN for no values. */
  static double percentile(List<Double> values, double p) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100 * sorted.size());
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, rank - 1)));
  }
}
