package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.report.Percentiles;
import dev.sluice.loadtest.report.RunSummary;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The headline of an open-loop scenario (monday-maintenance, steady, spike), computed from the
 * run's own figures: the service's CPU, the history viewers' p99, the rescue jobs served and the
 * 5xx, each beside its aim; with {@code --ab}, each set against the run without Sluice.
 */
final class ScenarioVerdict {

  /** The CPU target of the story is 70 %; 5 points over it still counts as held. */
  static final double CPU_AIM_PERCENT = 75;
  /** The history viewers must not notice the maintenance window. */
  static final double HISTORY_P99_AIM_MILLIS = 50;

  private ScenarioVerdict() {}

  /**
   * @param runs the scenario's runs in the order they ran; with {@code ab}, the first is without
   *     Sluice and is the reference the second is judged against
   */
  static List<Verdict> of(List<RunSummary> runs, boolean ab) {
    List<Verdict> verdicts = new ArrayList<>();
    RunSummary reference = ab && runs.size() > 1 ? runs.get(0) : null;
    for (int i = 0; i < runs.size(); i++) {
      RunSummary run = runs.get(i);
      if (reference != null && i == 0) {
        verdicts.add(Verdict.info(reference(run)));
      } else {
        verdicts.add(judge(run, reference));
      }
    }
    return verdicts;
  }

  /** The run judged against the aims; {@code reference} (or null) is the run without Sluice. */
  static Verdict judge(RunSummary run, RunSummary reference) {
    List<String> parts = new ArrayList<>();
    List<Outcome> judged = new ArrayList<>();

    double cpu = run.cpu().processMean();
    if (Double.isNaN(cpu)) {
      parts.add("service CPU not measured");
    } else {
      judged.add(Outcome.of(cpu <= CPU_AIM_PERCENT));
      parts.add("service CPU mean "
          + Verdict.withAim(cpu(cpu), "≤ " + cpu(CPU_AIM_PERCENT))
          + (reference == null
              ? ""
              : " against " + cpu(reference.cpu().processMean()) + " without"));
    }

    double history = historyP99(run);
    if (Double.isNaN(history)) {
      parts.add("history p99 not measured (no history lookup answered 200)");
    } else {
      judged.add(Outcome.of(history < HISTORY_P99_AIM_MILLIS));
      parts.add("history p99 "
          + Verdict.withAim(ms(history), "< " + ms(HISTORY_P99_AIM_MILLIS))
          + (reference == null ? "" : " against " + ms(historyP99(reference))));
    }

    long rescueSent = run.accounting().sent().getOrDefault("rescue", 0L);
    if (rescueSent == 0) {
      parts.add("no rescue job sent");
    } else {
      long served = served(run, "rescue");
      judged.add(Outcome.of(served >= rescueSent));
      parts.add("rescue "
          + Verdict.withAim(served + " of " + rescueSent + " served", "all")
          + (reference == null
              ? ""
              : " against " + served(reference, "rescue") + " of "
                  + reference.accounting().sent().getOrDefault("rescue", 0L)));
    }

    long errors = serverErrors(run);
    judged.add(Outcome.of(errors == 0));
    parts.add(Verdict.withAim(errors + " 5xx other than 503/504", "0")
        + (reference == null ? "" : " against " + serverErrors(reference)));

    if (reference != null) {
      long with = served(run, "transcode");
      long without = served(reference, "transcode");
      parts.add("transcode jobs served " + with + " against " + without
          + (without > 0 ? " (" + Verdict.change((double) with / without) + ")" : ""));
    }
    return Verdict.overall(run.label() + ": " + String.join("; ", parts), judged);
  }

  private static String reference(RunSummary run) {
    long rescueSent = run.accounting().sent().getOrDefault("rescue", 0L);
    return String.format(
        Locale.ROOT,
        "%s (the reference): service CPU mean %s, history p99 %s, %s, %d 5xx other than 503/504,"
            + " %d transcode jobs served",
        run.label(),
        cpu(run.cpu().processMean()),
        ms(historyP99(run)),
        rescueSent == 0
            ? "no rescue job sent"
            : "rescue " + served(run, "rescue") + " of " + rescueSent + " served",
        serverErrors(run),
        served(run, "transcode"));
  }

  static double historyP99(RunSummary run) {
    Percentiles p = run.latencyMillis().get("history 200");
    return p == null || p.count() == 0 ? Double.NaN : p.p99();
  }

  private static long served(RunSummary run, String stream) {
    return run.accounting().outcomes().getOrDefault(stream, Map.of()).getOrDefault("200", 0L);
  }

  /** Requests that ended in a 5xx the limiter does not send on purpose (its 503 and 504). */
  static long serverErrors(RunSummary run) {
    return run.accounting().outcomes().values().stream()
        .flatMap(m -> m.entrySet().stream())
        .filter(e -> e.getKey().matches("5\\d\\d")
            && !e.getKey().equals("503")
            && !e.getKey().equals("504"))
        .mapToLong(Map.Entry::getValue)
        .sum();
  }

  private static String cpu(double percent) {
    return Double.isNaN(percent) ? "not measured" : String.format(Locale.ROOT, "%.1f%%", percent);
  }

  private static String ms(double millis) {
    return Double.isNaN(millis) ? "not measured" : String.format(Locale.ROOT, "%,.0f ms", millis);
  }
}
