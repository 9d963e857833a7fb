package dev.sluice.loadtest.soak;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.ToDoubleFunction;

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
    StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "%6.0f s:", s.seconds()));
    for (int i = 0; i < s.nodes().size(); i++) {
      SoakSample.Node n = s.nodes().get(i);
      line.append(String.format(
          Locale.ROOT,
          " node %d heap %.1f MiB, %d threads, %d in flight, %d queued, %d leases;",
          i + 1,
          n.heapAfterGc() / MIB,
          n.threads(),
          n.inFlight(),
          n.queued(),
          n.leases()));
    }
    return line.append(String.format(
            Locale.ROOT, " Redis %.2f MiB, %d keys", s.redisUsedMemory() / MIB, s.redisKeys()))
        .toString();
  }

  /** Writes {@code summary.json} and {@code report.html} into {@code out}; returns the report. */
  Path write(Path out) throws IOException {
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("scenario", "soak");
    summary.put("durationSeconds", duration.toSeconds());
    summary.put("verdict", verdict());
    summary.put("trends", trends());
    summary.put("end", end);
    summary.put("answers", answers);
    summary.put("samples", samples);
    new ObjectMapper()
        .enable(SerializationFeature.INDENT_OUTPUT)
        .writeValue(out.resolve("summary.json").toFile(), summary);
    StringBuilder html = new StringBuilder("<!doctype html><meta charset=\"utf-8\">"
            + "<title>Sluice soak</title><style>body{font-family:sans-serif}td,th{padding:2px 8px;"
            + "text-align:right}</style>\n<h1>Soak: two nodes on one Redis, ")
        .append(duration.toMinutes())
        .append(" min</h1>\n<p><b>Verdict: ")
        .append(escape(verdict()))
        .append("</b></p>\n<h2>Trends</h2>\n<table><tr><th>quantity"
            + "<th>samples<th>slope per minute<th>rise over the run<th>tolerance<th>verdict\n");
    for (Trend t : trends()) {
      html.append(String.format(
          Locale.ROOT,
          "<tr><td>%s<td>%d<td>%+.3f %s<td>%+.3f<td>%.3f<td>%s%n",
          escape(t.name()),
          t.samples(),
          t.slopePerMinute(),
          escape(t.unit()),
          t.rise(),
          t.tolerance(),
          t.verdict()));
    }
    html.append("</table>\n<h2>After the load</h2>\n<p>")
        .append(end == null ? "no sample" : escape(line(end)))
        .append("</p>\n<h2>Answers</h2>\n<table>");
    answers.entrySet().stream()
        .sorted(Map.Entry.comparingByKey())
        .forEach(e -> html.append("<tr><td>")
            .append(escape(e.getKey()))
            .append("<td>")
            .append(e.getValue())
            .append('\n'));
    html.append("</table>\n<h2>Samples</h2>\n<pre>");
    samples.forEach(s -> html.append(escape(line(s))).append('\n'));
    html.append("</pre>\n");
    Path report = out.resolve("report.html");
    Files.writeString(report, html, StandardCharsets.UTF_8);
    trends()
        .forEach(t -> System.out.printf(
            Locale.ROOT,
            "%s: %+.3f %s/min (%s)%n",
            t.name(),
            t.slopePerMinute(),
            t.unit(),
            t.verdict()));
    System.out.println("soak after the load: " + (end == null ? "no sample" : line(end)));
    System.out.println("soak verdict: " + verdict());
    return report;
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
  }
}
