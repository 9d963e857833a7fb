package dev.sluice.loadtest.transitions;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * What {@code --scenario transitions} found, part by part: the verdicts ({@link Verdict}, the
 * headlines every load-test report opens with), the figures behind them, the answers by status,
 * and the machine, its load and the command; written as {@code report.html} and {@code
 * summary.json}.
 */
final class TransitionsReport {

  private final Options options;
  private final String loadBefore;
  private String loadAfter = "unknown";
  private final Map<String, List<Verdict>> verdicts = new LinkedHashMap<>();
  private final Map<String, Map<String, Object>> figures = new LinkedHashMap<>();
  private final Map<String, List<String>> events = new LinkedHashMap<>();
  private final Map<String, Map<String, Long>> statuses = new LinkedHashMap<>();
  private final Map<String, Map.Entry<String, List<Figures.Cpu>>> cpu = new LinkedHashMap<>();
  private Map<String, Double> redisCommands = Map.of();
  private final List<String> inFlight = new ArrayList<>();

  TransitionsReport(Options options, String loadBefore) {
    this.options = options;
    this.loadBefore = loadBefore;
  }

  void part(String name, List<Verdict> found) {
    verdicts.put(name, List.copyOf(found));
    found.forEach(v -> System.out.println(Reporter.line(v)));
  }

  void figure(String part, String name, double value) {
    figures.computeIfAbsent(part, p -> new LinkedHashMap<>()).put(name, value);
  }

  void events(String part, List<String> list) {
    events.put(part, List.copyOf(list));
  }

  /** A part's CPU samples, shown under it with {@code caption}. */
  void cpu(String part, String caption, List<Figures.Cpu> samples) {
    cpu.put(part, Map.entry(caption, List.copyOf(samples)));
  }

  private List<Figures.Cpu> cpuOf(String part) {
    return cpu.containsKey(part) ? cpu.get(part).getValue() : List.of();
  }

  void redisCommands(Map<String, Double> perNodePerSecond) {
    this.redisCommands = Map.copyOf(perNodePerSecond);
  }

  void loadAfter(String load) {
    this.loadAfter = load;
  }

  /** Each node's in-flight and queued, once a second, for the report. */
  void inFlight(List<Figures.InFlight> readings, long start, long joined, long killed) {
    inFlight.add(f(
        "node 2 answered /health at %.1f s; node 2 killed at %.1f s",
        (joined - start) / 1e9, (killed - start) / 1e9));
    long lastSecond = -1;
    StringBuilder line = new StringBuilder();
    for (Figures.InFlight r : readings) {
      long second = (r.nanos() - start) / 1_000_000_000L;
      if (second != lastSecond) {
        if (line.length() > 0) {
          inFlight.add(line.toString());
        }
        line = new StringBuilder(f("%3d s:", second));
        lastSecond = second;
      }
      line.append(f(" n%d %d/%d", r.node(), r.inFlight(), r.queued()));
    }
    if (line.length() > 0) {
      inFlight.add(line.toString());
    }
  }

  /** The final answer of each request, by node-independent kind: status or failure. */
  void statuses(String part, List<Figures.Request> requests) {
    statuses.put(part, tally(requests));
  }

  static Map<String, Long> tally(List<Figures.Request> requests) {
    return requests.stream()
        .map(r -> {
          Shot last = r.last();
          String retried = r.tries().size() > 1 ? " (after a refused connect)" : "";
          return (last.failure() == Shot.Failure.NONE
                  ? last.status() + (last.drainAnswer() ? " drain answer" : "")
                  : last.failure().name().toLowerCase(Locale.ROOT))
              + retried;
        })
        .collect(Collectors.groupingBy(k -> k, TreeMap::new, Collectors.counting()));
  }

  static String commands(Map<String, Double> perNode) {
    if (perNode.isEmpty()) {
      return "none";
    }
    return perNode.entrySet().stream()
        .sorted(Map.Entry.<String, Double>comparingByValue().reversed())
        .map(e -> f("%s %.1f", e.getKey(), e.getValue()))
        .collect(Collectors.joining(", "));
  }

  /** The command that reproduces this run. */
  String command() {
    return options.replay("transitions", "");
  }

  List<Verdict> all() {
    return verdicts.values().stream().flatMap(List::stream).toList();
  }

  /** The report: the machine and command, then per part its verdicts and what lies behind them. */
  Report report() {
    Map<String, Object> byPart = new LinkedHashMap<>();
    verdicts.forEach((part, list) -> byPart.put(
        part,
        list.stream()
            .map(v -> Map.of("outcome", v.outcome().css(), "text", v.text()))
            .toList()));
    Report.Builder report = Report.titled("transitions")
        .summary("scenario", "transitions")
        .ran(
            command(),
            loadBefore,
            loadAfter,
            "The load generator, the services and Redis share the machine; on a busy one the"
                + " figures are indicative only.")
        .summary("partSeconds", options.duration().toSeconds())
        .summary("verdicts", byPart)
        .summary("figures", figures)
        .summary("answers", statuses)
        .summary("events", events)
        .summary("redisCommandsPerNodePerSecond", redisCommands)
        .summary("coldStartCpu", cpuOf("cold-start"))
        .summary("coldFfmpegMachineCpu", cpuOf("cold-ffmpeg"));
    verdicts.forEach((part, list) -> {
      report.add(new Block.Verdicts(part, list));
      Map<String, Object> f = figures.get(part);
      if (f != null) {
        report.add(Block.Table.of().rows(f).build());
      }
      if (events.containsKey(part)) {
        report.add(new Block.Preformatted(String.join("\n", events.get(part))));
      }
      Map<String, Long> answers = statuses.get(part);
      if (answers != null) {
        report.add(Block.Table.of("final answer", "requests").rows(answers).build());
      }
      if (!cpuOf(part).isEmpty()) {
        report.text(cpu.get(part).getKey() + ": "
            + cpuOf(part).stream()
                .map(c -> f("%.1f s %.0f%%", c.seconds(), c.percent()))
                .collect(Collectors.joining(", ")));
      }
      if (part.startsWith("scale-out") && !inFlight.isEmpty()) {
        report
            .text("Redis commands per node per second while both nodes ran: "
                + commands(redisCommands))
            .text("In flight / queued per node (each node's /sluice):")
            .add(new Block.Preformatted(String.join("\n", inFlight)));
      }
    });
    return report.build();
  }

  Path write(Path out) throws IOException {
    Path report = Reporter.write(report(), out);
    System.out.println("transitions: " + command());
    return report;
  }
}
