package dev.sluice.loadtest.overhead;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.overhead.OverheadRun.Result;
import dev.sluice.loadtest.overhead.OverheadRun.Side;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;

/**
 * The overhead run's report: the headline of each Sluice variant ({@link OverheadVerdict}), then
 * every service's medians over the rounds, the same figures as {@code overhead.json}.
 */
final class OverheadReport {

  private OverheadReport() {}

  static Report of(Result result) {
    return Report.titled("overhead")
        .add(new Block.Verdicts("Verdict", OverheadVerdict.of(result)))
        .text(f(
            "%s driven by %s, %d rounds of %.1f s per service, every service up at once; a round"
                + " drives the services in turn and then in the reverse order (two slices each,"
                + " centred on the same moment), the first of each round rotated; figures are"
                + " medians over the rounds. The judge is"
                + " the server's CPU time per request, the bytes it allocates per request the"
                + " explanation. A paired ratio compares two services round by round (each round"
                + " measures both within seconds, so a swing of the machine cancels): the geometric"
                + " mean of the rounds' ratios and its 95%% bootstrap interval; rounds are added"
                + " until every interval against no limiter is within ±2%% or %d rounds have run."
                + " Instructions per request are not counted: this machine's kernel exposes no"
                + " hardware counters to perf (a VM without a virtual PMU). Load average %.2f"
                + " before, %.2f after.",
            result.endpoint(),
            result.generator(),
            result.rounds(),
            result.secondsPerRound(),
            OverheadRun.MAX_ROUNDS,
            result.loadAverageBefore(),
            result.loadAverageAfter()))
        .add(table(result))
        .build();
  }

  /** Every service's medians; the console prints the same table. */
  static Block.Table table(Result result) {
    Block.Table.Builder table = Block.Table.of(
        "service",
        "CPU µs / request",
        "CPU ratio to no limiter",
        "paired ratio, 95% interval",
        "rounds' range",
        "bytes / request",
        "bytes over no limiter",
        "requests / s",
        "rate ratio",
        "p50 ms",
        "p99 ms",
        "not 2xx");
    for (Side s : result.sides()) {
      table.row(
          s.variant() + ": " + s.description(),
          f("%.1f", s.cpuMicrosPerRequest()),
          f("%.3f", s.cpuRatio()),
          OverheadVerdict.interval(s.cpuPaired()),
          f("%.3f", s.cpuRatioLow()) + "-" + f("%.3f", s.cpuRatioHigh()),
          f("%,.0f", s.bytesPerRequest()),
          f("%+,.0f", s.bytesOverBaseline()),
          f("%,.0f", s.requestsPerSecond()),
          f("%.3f", s.throughputRatio()),
          f("%.2f", s.p50Millis()),
          f("%.2f", s.p99Millis()),
          s.non2xx());
    }
    return table.build();
  }
}
