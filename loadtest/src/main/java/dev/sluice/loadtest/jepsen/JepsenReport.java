package dev.sluice.loadtest.jepsen;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Report;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.testing.ConcurrencyHistory;
import dev.sluice.testing.RateHistory;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@code --scenario jepsen} found: the verdicts (the whole history within the rule and its
 * allowances, the calm account never refused within its rate, the jobs never above the limit, and
 * one per fault kind), a row per fault as it happened with what went wrong in its stretch, the
 * seed and the schedule, the answers by outcome; written as {@code report.html} and {@code
 * summary.json}.
 */
final class JepsenReport {

  private final Options options;
  private final Schedule schedule;
  private final String loadBefore;
  private String loadAfter = "unknown";
  private List<Injected> happened = List.of();
  private JepsenCheck.Findings findings;
  private Map<String, Long> outcomes = Map.of();
  private int unanswered;
  private String stopped = "";

  JepsenReport(Options options, Schedule schedule, String loadBefore) {
    this.options = options;
    this.schedule = schedule;
    this.loadBefore = loadBefore;
  }

  void result(
      List<Injected> happened,
      JepsenCheck.Findings findings,
      Map<String, Long> outcomes,
      int unanswered) {
    this.happened = List.copyOf(happened);
    this.findings = findings;
    this.outcomes = Map.copyOf(outcomes);
    this.unanswered = unanswered;
  }

  /** The schedule stopped before its end: the nodes did not come back, or a process failed. */
  void stopped(String why) {
    this.stopped = why;
  }

  void loadAfter(String load) {
    this.loadAfter = load;
  }

  /** The verdicts, the overall one first. */
  List<Verdict> verdicts() {
    List<Verdict> checks = new ArrayList<>();
    RateHistory.Report all = findings.all();
    checks.add(Verdict.judged(
            "over-admissions of any account beyond the rule and the failure table's allowances",
            "0",
            Integer.toString(all.overAdmissions().size()),
            Verdict.Outcome.of(all.withinBound()))
        .because(overSummary(all)));
    long calmAsked = findings.calmAnswers();
    // one answer a second at the least: the calm account asks once a second per node
    boolean calmAskedEnough = calmAsked >= options.duration().toSeconds();
    RateHistory.Report calm = findings.calm();
    checks.add(
        calmAskedEnough
            ? Verdict.judged(
                    "refusals of the calm account within its rate, outside a fault's allowance",
                    "0",
                    Integer.toString(calm.underAdmissions().size()),
                    Verdict.Outcome.of(calm.underAdmissions().isEmpty()))
                .because(calm.summary())
            : Verdict.notMeasured("the calm account was answered " + calmAsked
                + " times, fewer than once a second: its refusals are not judged"));
    ConcurrencyHistory.Report jobs = findings.jobs();
    checks.add(
        jobs.jobs() > 0
            ? Verdict.judged(
                    "job starts above the global limit of " + JepsenRun.JOB_LIMIT
                        + " and the allowances",
                    "0",
                    Integer.toString(jobs.overruns().size()),
                    Verdict.Outcome.of(jobs.withinLimit()))
                .because(jobs.summary())
            : Verdict.notMeasured("no job was served: jobs at once not judged"));
    if (!stopped.isEmpty()) {
      checks.add(Verdict.missed("the schedule stopped early: " + stopped));
    }
    for (FaultKind kind : JepsenRun.kinds(options)) {
      checks.add(kind(kind));
    }
    List<Verdict> verdicts = new ArrayList<>();
    long ran = happened.stream().filter(Injected::ran).count();
    verdicts.add(Verdict.overall(
        f(
            "jepsen, seed %d: %d faults on two nodes and one Redis; the history %s%s",
            schedule.seed(),
            ran,
            findings.passed()
                ? "holds the rule, the calm account and the limit within the allowances"
                : "breaks an allowance (below)",
            stopped.isEmpty() ? "" : "; the schedule stopped early (below)"),
        checks.stream().limit(stopped.isEmpty() ? 3 : 4).map(Verdict::outcome).toList()));
    verdicts.addAll(checks);
    return verdicts;
  }

  /** The decisions and the worst intervals (the refusals of the hot accounts are not judged). */
  private static String overSummary(RateHistory.Report all) {
    return all.decisions() + " decisions, " + all.admitted() + " admitted"
        + all.overAdmissions().stream()
            .map(o -> f(
                "; %s: %d admitted in %.1f-%.1f s where %.1f were allowed%s",
                o.actor(),
                o.admitted(),
                o.fromNanos() / 1e9,
                o.toNanos() / 1e9,
                o.bound(),
                o.faults().isEmpty() ? "" : " (overlapping " + String.join(", ", o.faults()) + ")"))
            .collect(Collectors.joining());
  }

  /** A fault kind: met when every stretch it started was clean, not measured when none ran. */
  private Verdict kind(FaultKind kind) {
    List<JepsenCheck.Stretch> of = findings.stretches().stream()
        .filter(s -> s.fault() != null && s.fault().planned().kind() == kind)
        .toList();
    if (of.isEmpty()) {
      String why = happened.stream()
          .filter(i -> i.planned().kind() == kind && !i.ran())
          .map(Injected::notRun)
          .findFirst()
          .orElse("this seed's schedule drew none in this duration");
      return Verdict.notMeasured(kind.id() + " (" + kind.description() + "): not measured, " + why);
    }
    long clean = of.stream().filter(JepsenCheck.Stretch::clean).count();
    return Verdict.of(
        clean == of.size(),
        f("%s (%s): %d of %d clean", kind.id(), kind.description(), clean, of.size()));
  }

  /** The command that replays this run. */
  String command() {
    return options.replay("jepsen", "");
  }

  private static String seconds(long nanos) {
    return f("%.1f", nanos / 1e9);
  }

  Report report() {
    List<Verdict> verdicts = verdicts();
    Block.Table.Builder faults = Block.Table.of(
        "fault",
        "what",
        "from s",
        "healed s",
        "settled s",
        "over-admissions",
        "calm refused",
        "jobs above the limit");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (JepsenCheck.Stretch s : findings.stretches()) {
      Injected i = s.fault();
      String over = s.over().stream()
          .map(o -> f(
              "%s %d where %.1f (%s-%s s)",
              o.actor(), o.admitted(), o.bound(), seconds(o.fromNanos()), seconds(o.toNanos())))
          .collect(Collectors.joining("; "));
      String refused = s.calmRefused().stream()
          .map(u -> seconds(u.askedNanos()) + " s")
          .collect(Collectors.joining(", "));
      String overruns = s.overruns().stream()
          .map(o ->
              f("%d running at %s s (allowed %d)", o.running(), seconds(o.atNanos()), o.allowed()))
          .collect(Collectors.joining("; "));
      faults.row(
          i == null ? "before any fault" : i.name(),
          i == null ? "" : i.planned().describe(),
          i == null ? "0.0" : seconds(i.fromNanos()),
          i == null ? "" : seconds(i.healedNanos()),
          i == null ? "" : seconds(i.settledNanos()),
          Block.Cell.judged(
              s.over().isEmpty() ? "0" : s.over().size() + ": " + over, s.over().isEmpty()),
          Block.Cell.judged(
              s.calmRefused().isEmpty() ? "0" : s.calmRefused().size() + ": " + refused,
              s.calmRefused().isEmpty()),
          Block.Cell.judged(
              s.overruns().isEmpty() ? "0" : s.overruns().size() + ": " + overruns,
              s.overruns().isEmpty()));
      Map<String, Object> row = new LinkedHashMap<>();
      row.put("fault", i == null ? "before any fault" : i.name());
      row.put("what", i == null ? "" : i.planned().describe());
      if (i != null) {
        row.put("fromSeconds", i.fromNanos() / 1e9);
        row.put("healedSeconds", i.healedNanos() / 1e9);
        row.put("settledSeconds", i.settledNanos() / 1e9);
      }
      row.put(
          "overAdmissions",
          s.over().stream()
              .map(o -> Map.of(
                  "account", o.actor(),
                  "admitted", o.admitted(),
                  "bound", o.bound(),
                  "fromSeconds", o.fromNanos() / 1e9,
                  "toSeconds", o.toNanos() / 1e9,
                  "overlapping", o.faults()))
              .toList());
      row.put(
          "calmRefusedAtSeconds",
          s.calmRefused().stream().map(u -> u.askedNanos() / 1e9).toList());
      row.put(
          "jobOverruns",
          s.overruns().stream()
              .map(o -> Map.of(
                  "atSeconds", o.atNanos() / 1e9, "running", o.running(), "allowed", o.allowed()))
              .toList());
      rows.add(row);
    }
    List<String> notRun = happened.stream()
        .filter(i -> !i.ran())
        .map(i -> i.name() + " (" + i.planned().describe() + "): " + i.notRun())
        .toList();
    String jobsNote = "Jobs at once are counted from the client's view: the demo reports each"
        + " job's queue and service time but not when it started, so a job counts as running"
        + " only over the span it certainly ran in (from the answer less its service time to the"
        + " send plus its queue and service time); a round trip can only shorten that span.";
    String clockNote = "A clock fault restarts the node with libfaketime preloaded (LD_PRELOAD,"
        + " FAKETIME as scheduled) and FAKETIME_DONT_FAKE_MONOTONIC=0: the JVM's monotonic clock"
        + " (nanoTime, which the local shares and lease timers use) is stepped and runs fast or"
        + " slow too, not only the wall clock; Sluice's scripts take their time from Redis.";
    Report.Builder report = Report.titled("jepsen")
        .summary("scenario", "jepsen")
        .summary("command", command())
        .summary("seed", schedule.seed())
        .summary(
            "schedule",
            schedule.faults().stream().map(Schedule.Planned::describe).toList())
        .summary("machine", Report.machine())
        .summary("loadAverageBefore", loadBefore)
        .summary("loadAverageAfter", loadAfter)
        .summary("passed", findings.passed() && stopped.isEmpty())
        .summary("stoppedEarly", stopped)
        .summary("verdicts", verdicts)
        .summary("decisions", findings.all().decisions())
        .summary("admitted", findings.all().admitted())
        .summary("calmAnswers", findings.calmAnswers())
        .summary("jobs", findings.jobs().jobs())
        .summary("mostJobsAtOnce", findings.jobs().mostAtOnce())
        .summary("slowCallsOutsideFaults", findings.slowCallsOutsideFaults().size())
        .summary("faults", rows)
        .summary("notRun", notRun)
        .summary("answers", outcomes)
        .summary("unansweredAtEnd", unanswered)
        .add(new Block.Verdicts("verdict", verdicts))
        .text(f("Seed %d; replay: %s", schedule.seed(), command()))
        .text("Schedule (planned, in order): " + schedule.describe())
        .add(faults.build());
    if (!notRun.isEmpty()) {
      report.text("Not run:").add(new Block.Items(notRun));
    }
    return report
        .text(f(
            "History: %d decisions (%d admitted), the calm account answered %d times; %d jobs,"
                + " at most %d at once; %d decisions without Redis outside a fault (slow calls,"
                + " a permit of allowance each); %d requests unanswered at the end.",
            findings.all().decisions(),
            findings.all().admitted(),
            findings.calmAnswers(),
            findings.jobs().jobs(),
            findings.jobs().mostAtOnce(),
            findings.slowCallsOutsideFaults().size(),
            unanswered))
        .add(Block.Table.of("answer", "count").rows(outcomes).build())
        .text(f(
            "The calm account was refused %d times within the slack of a decision a node made"
                + " without Redis outside a fault (the Redis timeout ran out first): such a call is"
                + " decided on the node's local share, as in an outage, which may refuse an account"
                + " within the rule (the failure table's slow call). Allowed, not counted above%s.",
            findings.calmRefusedAtSlowCalls().size(),
            findings.calmRefusedAtSlowCalls().isEmpty()
                ? ""
                : ": at "
                    + findings.calmRefusedAtSlowCalls().stream()
                        .map(u -> seconds(u.askedNanos()) + " s")
                        .collect(Collectors.joining(", "))))
        .text(jobsNote)
        .text(clockNote)
        .machine(
            loadBefore,
            loadAfter,
            "The load, the nodes, Redis and the proxy share the machine; on a busy one more"
                + " decisions run out of the Redis timeout (slow calls).")
        .build();
  }

  Path write(Path out) throws IOException {
    Report report = report();
    report.blocks().forEach(Block::echo);
    Path page = Reporter.write(report, out);
    System.out.println("jepsen: " + command());
    return page;
  }
}
