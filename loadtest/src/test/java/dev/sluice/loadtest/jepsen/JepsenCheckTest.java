package dev.sluice.loadtest.jepsen;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.jepsen.JepsenCheck.Answer;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.testing.ConcurrencyHistory.Job;
import dev.sluice.testing.RateHistory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Synthetic histories against the scenario's check and verdict: within the rule and the failure
 * table's allowances passes, beyond them fails, wherever the fault was.
 */
class JepsenCheckTest {

  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  /** The scenario's own check: 5/s, burst 5, 2 nodes (a share of 2), a job limit of 4. */
  private static final JepsenCheck CHECK = JepsenRun.CHECK;

  /** A blackhole from 20 s, healed at 23 s, settled at 24.5 s. */
  private static final Injected BLACKHOLE = new Injected(
      1,
      new Schedule.Planned(
          FaultKind.BLACKHOLE, Duration.ofSeconds(3), Duration.ofSeconds(5), 0, ""),
      20 * S,
      23 * S,
      24_500 * MS,
      "");

  /** A hot account asking every 50 ms for 60 s, admitted at the rule's rate (one in four). */
  private static List<Answer> hotAtTheRate() {
    List<Answer> answers = new ArrayList<>();
    for (long t = 0; t < 60 * S; t += 50 * MS) {
      boolean allowed = (t / (50 * MS)) % 4 == 0;
      answers.add(new Answer("hot-1", 1, t, t + 2 * MS, allowed));
    }
    return answers;
  }

  /** The calm account once a second, always admitted. */
  private static List<Answer> calm() {
    List<Answer> answers = new ArrayList<>();
    for (long t = 0; t < 60 * S; t += S) {
      answers.add(new Answer("calm", 2, t + 10 * MS, t + 12 * MS, true));
    }
    return answers;
  }

  /** Jobs of 200 ms back to back on each node: two at once. */
  private static List<Job> twoJobsAtOnce() {
    List<Job> jobs = new ArrayList<>();
    for (long t = 0; t < 60 * S; t += 210 * MS) {
      jobs.add(new Job("node 1", t, t + 200 * MS));
      jobs.add(new Job("node 2", t + 5 * MS, t + 205 * MS));
    }
    return jobs;
  }

  /**
   * Another hot account, quiet until {@code atNanos} (its bucket full), then {@code n} admissions
   * within 10 ms: the burst is the most the rule allows there.
   */
  private static List<Answer> burst(long atNanos, int n) {
    List<Answer> answers = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      answers.add(new Answer("hot-2", 1 + i % 2, atNanos + i * MS, atNanos + 10 * MS, true));
    }
    return answers;
  }

  private static JepsenCheck.Findings check(List<Answer> answers, List<Job> jobs) {
    return CHECK.check(answers, jobs, List.of(BLACKHOLE), List.of());
  }

  @Test
  void aHistoryAtTheRuleWithAShareDuringTheFaultPasses() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    // the burst and one local share (2) more while the blackhole lasts
    answers.addAll(burst(21 * S, 5 + 2));
    // the burst and a permit per node in the period after it settled
    answers.addAll(burst(24_600 * MS, 5 + 2));

    JepsenCheck.Findings findings = check(answers, twoJobsAtOnce());

    assertThat(findings.passed()).as(findings.all().summary()).isTrue();
    assertThat(findings.stretches()).hasSize(2).allMatch(JepsenCheck.Stretch::clean);
    assertThat(verdicts(findings).get(0).outcome()).isEqualTo(Verdict.Outcome.MET);
  }

  @Test
  void anOverAdmissionAfterTheFaultHasSettledFailsAndIsPutOnThatFault() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    // at 40 s, long after the settling and the period after it: one more than the burst
    answers.addAll(burst(40 * S, 5 + 1));

    JepsenCheck.Findings findings = check(answers, twoJobsAtOnce());

    assertThat(findings.passed()).isFalse();
    assertThat(findings.all().overAdmissions()).singleElement().satisfies(o -> {
      assertThat(o.actor()).isEqualTo("hot-2");
      assertThat(o.admitted()).isEqualTo(6);
      assertThat(o.faults()).isEmpty();
    });
    assertThat(findings.stretches().get(0).clean()).isTrue();
    assertThat(findings.stretches().get(1).fault()).isEqualTo(BLACKHOLE);
    assertThat(findings.stretches().get(1).over()).isNotEmpty();
    List<Verdict> verdicts = verdicts(findings);
    assertThat(verdicts.get(0).outcome()).isEqualTo(Verdict.Outcome.MISSED);
    assertThat(verdicts)
        .filteredOn(v -> v.text().startsWith("blackhole"))
        .singleElement()
        .extracting(Verdict::outcome)
        .isEqualTo(Verdict.Outcome.MISSED);
  }

  @Test
  void moreThanAShareDuringTheFaultFails() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    answers.addAll(burst(21 * S, 5 + 2 + 1));

    assertThat(check(answers, twoJobsAtOnce()).passed()).isFalse();
  }

  @Test
  void aRefusalOfTheCalmAccountOutsideAFaultFailsAndOneDuringItDoesNot() {
    List<Answer> during = new ArrayList<>(hotAtTheRate());
    calm()
        .forEach(a -> during.add(
            a.askedNanos() / S == 21
                ? new Answer("calm", 2, a.askedNanos(), a.answeredNanos(), false)
                : a));
    assertThat(check(during, twoJobsAtOnce()).calm().underAdmissions()).isEmpty();

    List<Answer> after = new ArrayList<>(hotAtTheRate());
    calm()
        .forEach(a -> after.add(
            a.askedNanos() / S == 40
                ? new Answer("calm", 2, a.askedNanos(), a.answeredNanos(), false)
                : a));
    JepsenCheck.Findings findings = check(after, twoJobsAtOnce());
    assertThat(findings.passed()).isFalse();
    assertThat(findings.stretches().get(1).calmRefused())
        .singleElement()
        .extracting(RateHistory.UnderAdmission::askedNanos)
        .isEqualTo(40 * S + 10 * MS);
  }

  @Test
  void jobsAboveTheLimitOutsideAFaultFailAndAShareMoreDuringItPasses() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    List<Job> during = new ArrayList<>(twoJobsAtOnce());
    // two at once plus two plus a share (2) during the blackhole: 6 running, allowed 4 + 2
    for (int i = 0; i < 4; i++) {
      during.add(new Job("node 1", 21 * S + 100 * MS, 21 * S + 150 * MS));
    }
    assertThat(check(answers, during).jobs().withinLimit()).isTrue();

    List<Job> after = new ArrayList<>(twoJobsAtOnce());
    for (int i = 0; i < 4; i++) {
      after.add(new Job("node 2", 40 * S + 100 * MS, 40 * S + 150 * MS));
    }
    JepsenCheck.Findings findings = check(answers, after);
    assertThat(findings.passed()).isFalse();
    assertThat(findings.stretches().get(1).overruns()).isNotEmpty();
  }

  @Test
  void aSlowCallOutsideAFaultAllowsOnePermit() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    answers.addAll(burst(40 * S, 5 + 1));

    assertThat(
            CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE), List.of()).passed())
        .isFalse();
    JepsenCheck.Findings slow =
        CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE), List.of(40 * S + 100 * MS));
    assertThat(slow.passed()).isTrue();
    assertThat(slow.slowCallsOutsideFaults()).containsExactly(40 * S + 100 * MS);
  }

  @Test
  void aRefusalOfTheCalmAccountAtASlowCallIsDecidedOnTheShareAndAllowedButListed() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    calm()
        .forEach(a -> answers.add(
            a.askedNanos() / S == 40
                ? new Answer("calm", 2, a.askedNanos(), a.answeredNanos(), false)
                : a));

    JepsenCheck.Findings atSlowCall =
        CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE), List.of(40 * S + 100 * MS));
    assertThat(atSlowCall.passed()).isTrue();
    assertThat(atSlowCall.calmRefusedAtSlowCalls())
        .singleElement()
        .extracting(RateHistory.UnderAdmission::askedNanos)
        .isEqualTo(40 * S + 10 * MS);

    // a slow call a second later is not beside it
    JepsenCheck.Findings elsewhere =
        CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE), List.of(41 * S + 100 * MS));
    assertThat(elsewhere.passed()).isFalse();
    assertThat(elsewhere.calmRefusedAtSlowCalls()).isEmpty();
  }

  @Test
  void aKindThatDidNotRunIsNotMeasuredSayingWhy() {
    Injected noClock = Injected.skipped(
        2,
        new Schedule.Planned(
            FaultKind.CLOCK, Duration.ofSeconds(20), Duration.ofSeconds(5), 1, "+1h x1.02"),
        30 * S,
        "libfaketime is not installed (apt-get install faketime)");
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    JepsenCheck.Findings findings =
        CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE, noClock), List.of());
    JepsenReport report = new JepsenReport(options(), schedule(), "0 / 0 / 0");
    report.result(List.of(BLACKHOLE, noClock), findings, Map.of(), 0);

    assertThat(report.verdicts())
        .filteredOn(v -> v.text().startsWith("clock"))
        .singleElement()
        .satisfies(v -> {
          assertThat(v.outcome()).isEqualTo(Verdict.Outcome.NOT_MEASURED);
          assertThat(v.text()).contains("libfaketime is not installed");
        });
    assertThat(report.verdicts().get(0).outcome()).isEqualTo(Verdict.Outcome.MET);
  }

  @Test
  void aScheduleThatStoppedEarlyFailsTheVerdictEvenWithACleanHistory() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    JepsenReport report = new JepsenReport(options(), schedule(), "0 / 0 / 0");
    report.result(List.of(BLACKHOLE), check(answers, twoJobsAtOnce()), Map.of(), 0);
    report.stopped("the nodes were not back on Redis within 60 s after #1 blackhole was healed");

    assertThat(report.verdicts().get(0).outcome()).isEqualTo(Verdict.Outcome.MISSED);
    assertThat(report.verdicts())
        .anySatisfy(v -> assertThat(v.text()).contains("not back on Redis within 60 s"));
  }

  @Test
  void theReportShowsEachFaultsFindingsAndTheSeed() {
    List<Answer> answers = new ArrayList<>(hotAtTheRate());
    answers.addAll(calm());
    answers.addAll(burst(40 * S, 5 + 1));
    JepsenReport report = new JepsenReport(options(), schedule(), "0 / 0 / 0");
    report.result(
        List.of(BLACKHOLE),
        CHECK.check(answers, twoJobsAtOnce(), List.of(BLACKHOLE), List.of(50 * S)),
        Map.of("history 200", 10L),
        0);

    dev.sluice.loadtest.report.Report page = report.report();

    assertThat(page.summary())
        .containsEntry("seed", 42L)
        .containsEntry("passed", false)
        .containsEntry("slowCallsOutsideFaults", 1);
    assertThat(page.blocks())
        .filteredOn(b -> b instanceof dev.sluice.loadtest.report.Block.Table)
        .map(b -> ((dev.sluice.loadtest.report.Block.Table) b).lines())
        .anySatisfy(lines -> assertThat(lines)
            .anySatisfy(line -> assertThat(line)
                .startsWith("fault #1 blackhole")
                .contains("over-admissions 1: hot-2 6 where 5.1 (40.0-40.0 s)")));
  }

  @Test
  void aJobsSpanIsTheTimeItCertainlyRan() {
    com.fasterxml.jackson.databind.node.ObjectNode body =
        new com.fasterxml.jackson.databind.ObjectMapper().createObjectNode();
    body.put("queuedMillis", 50.0).put("serviceMillis", 200.0);

    // sent at 0, answered at 300 ms: started by 100 ms at the latest, ended by 250 ms at least
    assertThat(JepsenLoad.span(1, 0, 300 * MS, body))
        .contains(new Job("node 1", 100 * MS, 250 * MS));
    // a round trip longer than the job: no span is certain
    assertThat(JepsenLoad.span(1, 0, 600 * MS, body)).isEmpty();
  }

  private static Options options() {
    return Options.parse("--embedded", "--scenario", "jepsen", "--duration", "60s");
  }

  private static Schedule schedule() {
    return new Schedule(42, List.of(BLACKHOLE.planned()));
  }

  private static List<Verdict> verdicts(JepsenCheck.Findings findings) {
    JepsenReport report = new JepsenReport(options(), schedule(), "0 / 0 / 0");
    report.result(List.of(BLACKHOLE), findings, Map.of(), 0);
    return report.verdicts();
  }
}
