package dev.sluice.loadtest.monday;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The replay judged against the scenario's targets: for the CPU-target variants each target met or
 * missed; for {@code none} whether the run shows the scenario's failure; the static limits are the
 * reference the throughput target is measured against.
 *
 * @param variant the variant's name
 * @param line one line that says it, for the console and the report's head
 * @param checks each target, with its verdict ({@link Verdict#name()} is the variant)
 */
public record MondayVerdict(String variant, String line, List<Verdict> checks) {

  /** The CPU target of the scenario's fix and its tolerance, percent. */
  static final double TARGET = 70;

  static final double TOLERANCE = 5;

  /**
   * The line as a headline: missed where a target was missed, met where every judged one was,
   * a reference for the static runs, not measured for a variant that did not run.
   */
  public Verdict headline() {
    return variant.startsWith("static")
        ? Verdict.info(line)
        : Verdict.overall(line, checks.stream().map(Verdict::outcome).toList());
  }

  /** Judges every result; the static runs among them are the throughput reference. */
  public static List<MondayVerdict> judge(List<MondayResult> results) {
    List<MondayResult> statics = results.stream()
        .filter(r -> r.error() == null && r.variant().startsWith("static"))
        .toList();
    List<MondayVerdict> verdicts = new ArrayList<>();
    for (MondayResult r : results) {
      verdicts.add(judge(r, statics));
    }
    return verdicts;
  }

  static MondayVerdict judge(MondayResult r, List<MondayResult> statics) {
    if (r.error() != null) {
      return new MondayVerdict(r.variant(), r.variant() + ": NOT RUN: " + r.error(), List.of());
    }
    if (r.variant().equals("none")) {
      return failureShown(r);
    }
    if (r.variant().startsWith("static")) {
      return new MondayVerdict(
          r.variant(),
          f(
              "%s: the reference: CPU mean %.1f %%, %.1f re-transcodes/min, rescue %d of %d served,"
                  + " history p99 %.0f ms",
              r.variant(),
              r.cpuMean(),
              r.jobsPerMinute(),
              r.rescueServed(),
              r.rescueJobs(),
              r.historyP99()),
          List.of());
    }
    double worst = r.worst10sAfter30();
    List<Verdict> checks = List.of(
        check(
            r,
            "machine CPU mean 70 ± 5 %",
            outcome(Math.abs(r.cpuMean() - TARGET) <= TOLERANCE, r.cpuMean()),
            f("%.1f %%", r.cpuMean())),
        Double.isNaN(worst)
            ? check(r, WINDOW_AIM, Outcome.NOT_MEASURED, "the window is shorter than 40 s")
            : check(r, WINDOW_AIM, outcome(worst <= 90, worst), f("worst 10 s: %.1f %%", worst)),
        check(
            r,
            "every rescue job served",
            r.rescueJobs() == 0
                ? Outcome.NOT_MEASURED
                : Outcome.of(r.rescueServed() == r.rescueJobs()),
            r.rescueServed() + " of " + r.rescueJobs()),
        check(
            r,
            "history p99 under 50 ms",
            outcome(r.historyP99() < 50, r.historyP99()),
            f("%.0f ms", r.historyP99())),
        throughput(r, statics));
    long met = checks.stream().filter(c -> c.outcome() == Outcome.MET).count();
    long judged =
        checks.stream().filter(c -> c.outcome() != Outcome.NOT_MEASURED).count();
    List<String> missed = checks.stream()
        .filter(c -> c.outcome() == Outcome.MISSED)
        .map(c -> c.target() + " (" + c.measured() + ")")
        .toList();
    String line = r.variant() + ": " + met + " of " + judged + " targets met"
        + (missed.isEmpty() ? "" : "; missed: " + String.join("; ", missed));
    return new MondayVerdict(r.variant(), line, checks);
  }

  private static final String WINDOW_AIM = "no 10 s window above 90 % after the first 30 s";

  /**
   * Re-transcodes per minute per percent of CPU against the static run whose mean CPU is nearest:
   * "at least 95 % of what a hand-tuned static limit achieves at the same mean CPU".
   */
  static Verdict throughput(MondayResult r, List<MondayResult> statics) {
    String target = "re-transcodes/min at least 95 % of a static limit's at the same mean CPU";
    Optional<MondayResult> nearest = statics.stream()
        .filter(s -> s.cpuMean() > 0 && s.jobsPerMinute() > 0)
        .min(Comparator.comparingDouble(s -> Math.abs(s.cpuMean() - r.cpuMean())));
    if (nearest.isEmpty() || !(r.cpuMean() > 0)) {
      return check(
          r, target, Outcome.NOT_MEASURED, "no static run with completed jobs to compare with");
    }
    MondayResult s = nearest.get();
    double ratio = (r.jobsPerMinute() / r.cpuMean()) / (s.jobsPerMinute() / s.cpuMean());
    return check(
        r,
        target,
        Outcome.of(ratio >= 0.95),
        f(
            "%.1f/min at %.1f %% against %s's %.1f/min at %.1f %%: %.0f %% per unit of CPU",
            r.jobsPerMinute(),
            r.cpuMean(),
            s.variant(),
            s.jobsPerMinute(),
            s.cpuMean(),
            100 * ratio));
  }

  /**
   * Without a limiter the run should show the scenario's failure: the CPU pinned (mean at least
   * 90 %) and the rescue job or the history viewers starved.
   */
  static MondayVerdict failureShown(MondayResult r) {
    boolean pinned = r.cpuMean() >= 90;
    boolean starved = r.rescueServed() < r.rescueJobs() || !(r.historyP99() < 50);
    String rescueAndHistory = f(
        "rescue %d of %d served, history p99 %.0f ms",
        r.rescueServed(), r.rescueJobs(), r.historyP99());
    List<Verdict> checks = List.of(
        check(
            r,
            "CPU pinned (mean at least 90 %)",
            outcome(pinned, r.cpuMean()),
            f("%.1f %%, longest stretch above 95 %%: %.0f s", r.cpuMean(), r.longestAbove95())),
        check(r, "rescue or history starved", Outcome.of(starved), rescueAndHistory));
    String line = f(
        "none: %s: CPU mean %.1f %%, longest stretch above 95 %% %.0f s, %s",
        pinned && starved ? "shows the scenario's failure" : "does NOT show the scenario's failure",
        r.cpuMean(),
        r.longestAbove95(),
        rescueAndHistory);
    return new MondayVerdict(r.variant(), line, checks);
  }

  /** One target of a variant: the unified verdict, named for the variant. */
  private static Verdict check(MondayResult r, String target, Outcome outcome, String detail) {
    return Verdict.judged(r.variant(), target, detail, outcome);
  }

  private static Outcome outcome(boolean met, double figure) {
    return Double.isNaN(figure) ? Outcome.MISSED : Outcome.of(met);
  }
}
