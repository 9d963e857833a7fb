package dev.sluice.loadtest.adaptive;

import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ServerSample;
import dev.sluice.loadtest.sampling.Spread;
import java.util.ArrayList;
import java.util.List;

/**
 * One variant of the adaptive comparison on one job mix at one overload, measured over the steady
 * part of the run (after the first fifth of the arrivals, which the controllers use to converge).
 * One object of {@code summary.json}.
 *
 * @param mix job mix id
 * @param variant variant name
 * @param description what limited the endpoint
 * @param limiterName the limiter in {@code /sluice} whose limit was read
 * @param overload offered load as a multiple of the capacity at 100 % CPU
 * @param serverCores cores the service reported
 * @param offeredPerSecond offered transcode jobs per second
 * @param capacityPerSecond jobs per second at 100 % CPU ({@code cores x 1000 / mean CPU ms})
 * @param targetCapacityPerSecond jobs per second at the 70 % target
 * @param steadyFromSecond start of the steady window (seconds into the run)
 * @param steadyToSecond end of the steady window (the last arrival)
 * @param processCpu the service's CPU, percent of the machine, one reading a second
 * @param machineCpu the whole machine's CPU (the load generator and other work included)
 * @param goodputPerSecond 200 answers per second in the steady window
 * @param goodputOfTarget goodput / target capacity
 * @param sent requests sent (tried once each)
 * @param ok ended 200
 * @param rejected ended 429
 * @param timedOut ended 504
 * @param other ended otherwise (5xx but 504, I/O errors, unfinished)
 * @param rejectedMillisP50 time from the intended send to a 429, median
 * @param rejectedMillisP99 the same, 99th percentile
 * @param admittedMillisP99 time from the intended send to a 200, 99th percentile
 * @param limit the limit from {@code /sluice} in the steady window
 * @param loadAverageBefore {@code /proc/loadavg} before the service started
 * @param loadAverageAfter {@code /proc/loadavg} after the run
 * @param error why the variant did not run, or null
 * @param run everything the run measured (charts)
 */
public record AdaptiveResult(
    String mix,
    String variant,
    String description,
    String limiterName,
    double overload,
    int serverCores,
    double offeredPerSecond,
    double capacityPerSecond,
    double targetCapacityPerSecond,
    double steadyFromSecond,
    double steadyToSecond,
    Spread processCpu,
    Spread machineCpu,
    double goodputPerSecond,
    double goodputOfTarget,
    long sent,
    long ok,
    long rejected,
    long timedOut,
    long other,
    double rejectedMillisP50,
    double rejectedMillisP99,
    double admittedMillisP99,
    Spread limit,
    String loadAverageBefore,
    String loadAverageAfter,
    String error,
    RunSummary run) {

  /** The CPU target of the comparison, percent of the machine. */
  static final double TARGET_CPU_PERCENT = 70;

  static AdaptiveResult of(
      JobMix mix,
      AdaptiveVariant variant,
      double overload,
      RunSummary run,
      String loadBefore,
      String loadAfter) {
    double to = run.durationSeconds();
    double from = steadyFrom(run.durationSeconds());
    List<Double> process = new ArrayList<>();
    List<Double> machine = new ArrayList<>();
    List<Double> limits = new ArrayList<>();
    for (ServerSample s : run.samples()) {
      if (s.second() >= from && s.second() <= to) {
        process.add(s.processCpuPercent());
        machine.add(s.systemCpuPercent());
        ServerSample.LimiterLoad load = s.limiters().get(variant.limiterName());
        if (load != null && load.limit() >= 0) {
          limits.add((double) load.limit());
        }
      }
    }
    long[] ok = run.attemptsPerSecond().getOrDefault("200", new long[0]);
    long completed = 0;
    for (int second = (int) from; second < (int) to && second < ok.length; second++) {
      completed += ok[second];
    }
    double goodput = completed / (to - from);
    double capacity = mix.capacity(run.serverCores());
    double target = capacity * TARGET_CPU_PERCENT / 100;
    Accounting a = run.accounting();
    long sent = a.totalSent();
    long ended200 = a.total("200");
    long ended429 = a.total("429");
    long ended504 = a.total("504");
    Percentiles rejectedLatency = run.latencyMillis().get("transcode 429");
    Percentiles admittedLatency = run.latencyMillis().get("transcode 200");
    return new AdaptiveResult(
        mix.id(),
        variant.name(),
        variant.description(),
        variant.limiterName(),
        overload,
        run.serverCores(),
        run.offeredTranscodePerSecond(),
        capacity,
        target,
        from,
        to,
        Spread.of(process),
        Spread.of(machine),
        goodput,
        goodput / target,
        sent,
        ended200,
        ended429,
        ended504,
        sent - ended200 - ended429 - ended504,
        rejectedLatency == null ? Double.NaN : rejectedLatency.p50(),
        rejectedLatency == null ? Double.NaN : rejectedLatency.p99(),
        admittedLatency == null ? Double.NaN : admittedLatency.p99(),
        Spread.of(limits),
        loadBefore,
        loadAfter,
        null,
        run);
  }

  /** A variant that could not run (its service did not start, or ignored its properties). */
  static AdaptiveResult failed(
      JobMix mix, AdaptiveVariant variant, double overload, String loadBefore, String error) {
    Spread none = Spread.of(List.of());
    return new AdaptiveResult(
        mix.id(),
        variant.name(),
        variant.description(),
        variant.limiterName(),
        overload,
        0,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        none,
        none,
        Double.NaN,
        Double.NaN,
        0,
        0,
        0,
        0,
        0,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        none,
        loadBefore,
        loadBefore,
        error,
        null);
  }

  /** The first fifth of the arrivals, at least 2 s, is the controllers' convergence. */
  static double steadyFrom(long durationSeconds) {
    return Math.min(durationSeconds / 2.0, Math.max(2, Math.ceil(durationSeconds / 5.0)));
  }

  /** CPU mean within 5 points of the target. */
  boolean cpuOnTarget() {
    return Math.abs(processCpu.mean() - TARGET_CPU_PERCENT) <= 5;
  }

  /** Fewer than 5 % of the rejections are 504s. */
  double timedOutShareOfRejections() {
    long rejections = rejected + timedOut;
    return rejections == 0 ? 0 : (double) timedOut / rejections;
  }
}
