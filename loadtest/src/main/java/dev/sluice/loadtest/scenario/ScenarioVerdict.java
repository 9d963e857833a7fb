package dev.sluice.loadtest.scenario;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.ms;

import dev.sluice.loadtest.report.Headline;
import dev.sluice.loadtest.report.Numbers;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * The headline of an open-loop scenario (monday-maintenance, steady, spike): the service's CPU,
 * the history viewers' p99, the rescue jobs served and the 5xx, each beside its aim; with {@code
 * --ab}, each set against the run without Sluice (the reference, stated first).
 */
final class ScenarioVerdict {

  /** The CPU target of the story is 70 %; 5 points over it still counts as held. */
  static final double CPU_AIM_PERCENT = 75;
  /** The history viewers must not notice the maintenance window. */
  static final double HISTORY_P99_AIM_MILLIS = 50;

  private ScenarioVerdict() {}

  /** With {@code ab}, the first run is without Sluice and the reference of the second. */
  static List<Verdict> of(List<RunSummary> runs, boolean ab) {
    List<Verdict> verdicts = new ArrayList<>();
    RunSummary reference = ab && runs.size() > 1 ? runs.get(0) : null;
    for (int i = 0; i < runs.size(); i++) {
      verdicts.add(
          reference != null && i == 0 ? reference(runs.get(i)) : judge(runs.get(i), reference));
    }
    return verdicts;
  }

  /** The run judged against the aims; {@code reference} (or null) is the run without Sluice. */
  static Verdict judge(RunSummary run, RunSummary reference) {
    Headline h = Headline.of(run.label());
    double cpu = run.cpu().processMean();
    if (Double.isNaN(cpu)) {
      h.fact("service CPU not measured");
    } else {
      h.check(
          "service CPU mean " + cpu(cpu),
          "≤ " + cpu(CPU_AIM_PERCENT),
          cpu <= CPU_AIM_PERCENT,
          against(reference, r -> cpu(r.cpu().processMean()) + " without"));
    }
    double history = historyP99(run);
    if (Double.isNaN(history)) {
      h.fact("history p99 not measured (no history lookup answered 200)");
    } else {
      h.check(
          "history p99 " + ms(history),
          "< " + ms(HISTORY_P99_AIM_MILLIS),
          history < HISTORY_P99_AIM_MILLIS,
          against(reference, r -> ms(historyP99(r))));
    }
    long rescueSent = sent(run, "rescue");
    if (rescueSent == 0) {
      h.fact("no rescue job sent");
    } else {
      h.check(
          "rescue " + served(run, "rescue") + " of " + rescueSent + " served",
          "all",
          served(run, "rescue") >= rescueSent,
          against(reference, r -> served(r, "rescue") + " of " + sent(r, "rescue")));
    }
    long errors = serverErrors(run);
    h.check(
        errors + " 5xx other than 503/504",
        "0",
        errors == 0,
        against(reference, r -> Long.toString(serverErrors(r))));
    if (reference != null) {
      long with = served(run, "transcode");
      long without = served(reference, "transcode");
      h.fact("transcode jobs served " + with + " against " + without
          + (without > 0 ? " (" + Numbers.change((double) with / without) + ")" : ""));
    }
    return h.verdict();
  }

  private static String against(RunSummary reference, Function<RunSummary, String> figure) {
    return reference == null ? "" : " against " + figure.apply(reference);
  }

  private static Verdict reference(RunSummary run) {
    long rescueSent = sent(run, "rescue");
    return Verdict.info(f(
        "%s (the reference): service CPU mean %s, history p99 %s, %s, %d 5xx other than 503/504,"
            + " %d transcode jobs served",
        run.label(),
        cpu(run.cpu().processMean()),
        ms(historyP99(run)),
        rescueSent == 0
            ? "no rescue job sent"
            : "rescue " + served(run, "rescue") + " of " + rescueSent + " served",
        serverErrors(run),
        served(run, "transcode")));
  }

  static double historyP99(RunSummary run) {
    Percentiles p = run.latencyMillis().get("history 200");
    return p == null || p.count() == 0 ? Double.NaN : p.p99();
  }

  private static long sent(RunSummary run, String stream) {
    return run.accounting().sent().getOrDefault(stream, 0L);
  }

  private static long served(RunSummary run, String stream) {
    return run.accounting().outcomes().getOrDefault(stream, Map.of()).getOrDefault("200", 0L);
  }

  /** Requests that ended in a 5xx the limiter does not send on purpose (its 503 and 504). */
  static long serverErrors(RunSummary run) {
    return run.accounting().outcomes().values().stream()
        .flatMap(m -> m.entrySet().stream())
        .filter(e -> e.getKey().matches("5\\d\\d") && !e.getKey().matches("50[34]"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static String cpu(double percent) {
    return Double.isNaN(percent) ? "not measured" : f("%.1f%%", percent);
  }
}
