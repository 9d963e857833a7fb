package dev.sluice.loadtest.soak;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;

/**
 * What a soak found: the trend of each sampled quantity (heap after GC and threads per node, Redis
 * memory and keys), whether in-flight, queued and leases were back at 0 after the load, the answers
 * by kind, and one verdict. The first {@link #WARM_UP} is left out of the trends when enough
 * samples remain (class loading, the JIT and the first keys of every account are not a leak).
 */
final class SoakReport {

  static final Duration WARM_UP = Duration.ofMinutes(1);
  private static final double MIB = 1024 * 1024;

  private final Duration duration;
  private final List<SoakSample> samples;
  private final SoakSample end;
  private final Map<String, Long> answers;

  SoakReport(
      Duration duration, List<SoakSample> samples, SoakSample end, Map<String, Long> answers) {
    this.duration = duration;
    this.samples = List.copyOf(samples);
    this.end = end;
    this.answers = Map.copyOf(answers);
  }

  /** The samples the trends rest on: without the warm-up when at least 3 remain. */
  List<SoakSample> steady() {
    List<SoakSample> after =
        samples.stream().filter(s -> s.seconds() >= WARM_UP.toSeconds()).toList();
    return after.size() >= Trend.MIN_SAMPLES ? after : samples;
  }

  /** One trend per node for heap and threads, and Redis memory and keys. */
  List<Trend> trends() {
    List<Trend> trends = new ArrayList<>();
    int nodes = samples.isEmpty() ? 0 : samples.get(0).nodes().size();
    for (int i = 0; i < nodes; i++) {
      int n = i;
      trends.add(trend(
          "heap after GC, node " + (n + 1),
          "MiB",
          s -> s.nodes().get(n).heapAfterGc() / MIB,
          2,
          0.05));
      trends.add(
          trend("threads, node " + (n + 1), "threads", s -> s.nodes().get(n).threads(), 2, 0.05));
    }
    trends.add(trend("Redis used_memory", "MiB", s -> s.redisUsedMemory() / MIB, 0.5, 0.05));
    trends.add(trend("Redis keys", "keys", SoakSample::redisKeys, 50, 0.10));
    return trends;
  }

  private Trend trend(
      String name, String unit, ToDoubleFunction<SoakSample> value, double floor, double fraction) {
    List<Trend.Point> points = steady().stream()
        .map(s -> new Trend.Point(s.seconds(), value.applyAsDouble(s)))
        .toList();
    return Trend.of(name, unit, points, floor, fraction);
  }

  /** Requests answered 5xx or not at all by the service (a client's own hang-up is not one). */
  long failures() {
    return answers.entrySet().stream()
        .filter(e -> e.getKey().endsWith("connection error")
            || (e.getKey().matches(".* 5\\d\\d")
                && !e.getKey().endsWith(" 503")
                && !e.getKey().endsWith(" 504")))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  /**
   * {@code no leak seen}, or what is wrong: a rising trend, work or leases left after the load,
   * requests that failed, or too few samples to tell.
   */
  String verdict() {
    List<String> wrong = new ArrayList<>();
    trends().stream().filter(Trend::rising).forEach(t -> wrong.add(t.name() + " rising"));
    if (end == null || !end.idle()) {
      wrong.add("in-flight, queued or leases not back to 0 after the load");
    }
    if (failures() > 0) {
      wrong.add(failures() + " requests failed (5xx other than 503/504, or no answer)");
    }
    if (samples.stream().filter(s -> s.seconds() >= WARM_UP.toSeconds()).count()
        < Trend.MIN_SAMPLES) {
      wrong.add("too few samples after the first minute for a trend (sampled every "
          + SoakRun.SAMPLE_SECONDS + " s)");
    }
    return wrong.isEmpty() ? "no leak seen" : String.join("; ", wrong);
  }

  /** One sample on one line, for the console. */
  static String line(SoakSample s) {
    StringBuilder line = new StringBuilder(f("%6.0f s:", s.seconds()));
    for (int i = 0; i < s.nodes().size(); i++) {
      SoakSample.Node n = s.nodes().get(i);
      line.append(f(
          " node %d heap %.1f MiB, %d threads, %d in flight, %d queued, %d leases;",
          i + 1, n.heapAfterGc() / MIB, n.threads(), n.inFlight(), n.queued(), n.leases()));
    }
    return line.append(f(" Redis %.2f MiB, %d keys", s.redisUsedMemory() / MIB, s.redisKeys()))
        .toString();
  }

  /** The report: the verdict, the trends, the state after the load, the answers, the samples. */
  Report report() {
    String verdict = verdict();
    return Report.titled("soak, two nodes on one Redis, " + duration.toMinutes() + " min")
        .summary("scenario", "soak")
        .summary("durationSeconds", duration.toSeconds())
        .summary("verdict", verdict)
        .summary("trends", trends())
        .summary("end", end)
        .summary("answers", answers)
        .summary("samples", samples)
        .add(new Block.Verdicts(
            "Verdict", List.of(Verdict.of(verdict.equals("no leak seen"), verdict))))
        .add(Block.Section.of("Trends", trendTable()))
        .add(Block.Section.of(
            "After the load", new Block.Text(end == null ? "no sample" : line(end))))
        .add(Block.Section.of(
            "Answers", Block.Table.of().rows(new TreeMap<>(answers)).build()))
        .add(Block.Section.of(
            "Samples",
            new Block.Preformatted(
                samples.stream().map(SoakReport::line).collect(Collectors.joining("\n")))))
        .build();
  }

  private Block.Table trendTable() {
    Block.Table.Builder table = Block.Table.of(
        "quantity", "samples", "slope per minute", "rise over the run", "tolerance", "verdict");
    for (Trend t : trends()) {
      table.row(
          t.name(),
          t.samples(),
          f("%+.3f %s", t.slopePerMinute(), t.unit()),
          f("%+.3f", t.rise()),
          f("%.3f", t.tolerance()),
          t.verdict());
    }
    return table.build();
  }

  /** Writes {@code summary.json} and {@code report.html} into {@code out}; returns the report. */
  Path write(Path out) throws IOException {
    Path report = Reporter.write(report(), out);
    trendTable().echo();
    System.out.println("soak after the load: " + (end == null ? "no sample" : line(end)));
    return report;
  }
}
