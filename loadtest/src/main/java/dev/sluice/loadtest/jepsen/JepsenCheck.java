package dev.sluice.loadtest.jepsen;

import dev.sluice.testing.ConcurrencyHistory;
import dev.sluice.testing.ConcurrencyHistory.Job;
import dev.sluice.testing.RateHistory;
import dev.sluice.testing.RateHistory.Allowance;
import dev.sluice.testing.RateHistory.Decision;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * The whole history of a jepsen run checked afterwards, as limiter-redis's {@code NemesisTest}
 * checks its own, with the same checkers ({@link RateHistory}, {@link ConcurrencyHistory}) and the
 * allowances of the failure table (limiter-redis/README.md): while a fault lasts and until both
 * nodes are on Redis again and the settling time has passed, one local share beyond the rule
 * (concurrency: one share of the limit; a paused node may hold every permit it had, so the whole
 * limit); for a rule period after that a permit per node; a decision that ran out of the Redis
 * timeout outside a fault (a slow call) one permit. The calm account, which asks under the rule,
 * must never be refused outside a fault's window; a slow call is a fault of its own (its decision is
 * made on the node's local share, as in an outage), so a calm refusal within a slow call's slack is
 * allowed and listed apart ({@link Findings#calmRefusedAtSlowCalls}).
 *
 * @param permits the rule's permits per period
 * @param period the rule's period
 * @param burst the rule's burst
 * @param jobLimit the global concurrency limit of the jobs
 * @param nodes nodes deciding
 * @param jobLength the longest a job runs (a permit taken on a share runs on that long)
 * @param calm the account that asks under the rule
 */
record JepsenCheck(
    long permits,
    Duration period,
    long burst,
    int jobLimit,
    int nodes,
    Duration jobLength,
    String calm) {

  /** After a fault has healed and both nodes are on Redis: the settling time of an emptied Redis. */
  static final Duration SETTLE = Duration.ofMillis(1_500);

  /**
   * One answer of the rate-ruled endpoint.
   *
   * @param account the rule's actor
   * @param node the node that answered (1 or 2)
   * @param askedNanos when it was sent, on the run's clock
   * @param answeredNanos when its answer came, on the same clock
   * @param allowed 200, or 429
   */
  record Answer(String account, int node, long askedNanos, long answeredNanos, boolean allowed) {}

  /** What the check found over the whole run, and per fault. */
  record Findings(
      RateHistory.Report all,
      RateHistory.Report calm,
      List<RateHistory.UnderAdmission> calmRefusedAtSlowCalls,
      long calmAnswers,
      ConcurrencyHistory.Report jobs,
      List<Long> slowCallsOutsideFaults,
      List<Stretch> stretches) {

    /** Every check passed: no over-admission, no owed refusal of the calm account, no overrun. */
    boolean passed() {
      return all.withinBound() && calm.underAdmissions().isEmpty() && jobs.withinLimit();
    }
  }

  /**
   * From a fault's injection to the next one's (the first stretch: from the start, without a
   * fault): what went wrong in it.
   *
   * @param fault the fault it starts with, or null for the stretch before any fault
   * @param over the worst interval of each account whose interval ended in this stretch, beyond
   *     the rule and the allowances
   * @param calmRefused the calm account's refusals in it that the rule did not call for
   * @param overruns job starts in it above the limit and the allowances
   */
  record Stretch(
      Injected fault,
      List<RateHistory.OverAdmission> over,
      List<RateHistory.UnderAdmission> calmRefused,
      List<ConcurrencyHistory.Overrun> overruns) {

    boolean clean() {
      return over.isEmpty() && calmRefused.isEmpty() && overruns.isEmpty();
    }
  }

  /** The slack of a slow call's allowance before the reading that saw it, and after. */
  static final long SLOW_BEFORE_NANOS = 500_000_000L;

  static final long SLOW_AFTER_NANOS = 300_000_000L;

  /** One local share of the rule: its burst over the nodes, at least 1. */
  long rateShare() {
    return Math.max(1, burst / nodes);
  }

  /** One share of the concurrency limit, at least 1. */
  int jobShare() {
    return Math.max(1, jobLimit / nodes);
  }

  /**
   * Checks the history.
   *
   * @param answers every allowed or refused answer
   * @param jobs every job, with the span it certainly ran in
   * @param faults the faults as they happened (those that did not run give no allowance)
   * @param slowCalls when a decision was seen made without Redis (a node's degraded decisions
   *     went up), on the run's clock; those inside a fault's allowance are its own
   */
  Findings check(
      Collection<Answer> answers,
      Collection<Job> jobs,
      List<Injected> faults,
      Collection<Long> slowCalls) {
    List<Injected> ran = faults.stream().filter(Injected::ran).toList();
    List<Allowance> during = new ArrayList<>();
    List<Allowance> rate = new ArrayList<>();
    List<Allowance> running = new ArrayList<>();
    long lingering = jobLength.toNanos() + 50_000_000L;
    for (Injected f : ran) {
      Allowance share = new Allowance(f.name(), f.fromNanos(), f.settledNanos(), rateShare());
      during.add(share);
      rate.add(share);
      rate.add(new Allowance(
          "after " + f.name(), f.settledNanos(), f.settledNanos() + period.toNanos(), nodes));
      int jobsBeyond = f.planned().kind() == FaultKind.NODE_PAUSE ? jobLimit : jobShare();
      running.add(new Allowance(f.name(), f.fromNanos(), f.settledNanos() + lingering, jobsBeyond));
    }
    List<Long> outside = new ArrayList<>();
    List<Allowance> calmAllowed = new ArrayList<>(during);
    for (long at : slowCalls) {
      boolean inFault = during.stream().anyMatch(a -> at >= a.fromNanos() && at < a.toNanos());
      if (!inFault) {
        // the watch reads every node's count every 200 ms over HTTP, and the call began up to a
        // Redis timeout before: half a second of slack before the reading that saw it
        rate.add(new Allowance("slow call", at - SLOW_BEFORE_NANOS, at + SLOW_AFTER_NANOS, 1));
        running.add(new Allowance("slow call", at - SLOW_BEFORE_NANOS, at + lingering, 1));
        calmAllowed.add(
            new Allowance("slow call", at - SLOW_BEFORE_NANOS, at + SLOW_AFTER_NANOS, 0));
        outside.add(at);
      }
    }
    List<Decision> history = answers.stream()
        .map(a -> new Decision(a.account(), a.askedNanos(), a.answeredNanos(), a.allowed(), 1))
        .toList();
    List<Decision> calmHistory =
        history.stream().filter(d -> d.actor().equals(calm)).toList();
    RateHistory.Report all = RateHistory.checkBucket(history, permits, period, burst, rate, 1.0);
    RateHistory.Report calmReport =
        RateHistory.checkBucket(calmHistory, permits, period, burst, calmAllowed, 1.0);
    List<RateHistory.UnderAdmission> atSlowCalls =
        new ArrayList<>(RateHistory.checkBucket(calmHistory, permits, period, burst, during, 1.0)
            .underAdmissions());
    atSlowCalls.removeAll(calmReport.underAdmissions());
    ConcurrencyHistory.Report jobReport = ConcurrencyHistory.check(jobs, jobLimit, running);
    return new Findings(
        all,
        calmReport,
        List.copyOf(atSlowCalls),
        calmHistory.size(),
        jobReport,
        List.copyOf(outside),
        stretches(history, ran, rate, calmReport, jobReport));
  }

  /**
   * The run cut at each fault's injection. Each stretch's decisions are checked again with two
   * rule periods before it (an interval reaching back into the stretch before counts where it
   * ends), so that each fault shows its own worst interval per account, not only the run's worst.
   */
  private List<Stretch> stretches(
      List<Decision> history,
      List<Injected> ran,
      List<Allowance> rate,
      RateHistory.Report calm,
      ConcurrencyHistory.Report jobs) {
    List<Stretch> stretches = new ArrayList<>();
    for (int i = -1; i < ran.size(); i++) {
      Injected fault = i < 0 ? null : ran.get(i);
      long from = fault == null ? Long.MIN_VALUE : fault.fromNanos();
      long to = i + 1 < ran.size() ? ran.get(i + 1).fromNanos() : Long.MAX_VALUE;
      long reach = fault == null ? Long.MIN_VALUE : from - 2 * period.toNanos();
      List<Decision> window = history.stream()
          .filter(d -> d.askedNanos() >= reach && d.askedNanos() < to)
          .toList();
      List<RateHistory.OverAdmission> over =
          RateHistory.checkBucket(window, permits, period, burst, rate, 1.0)
              .overAdmissions()
              .stream()
              .filter(o -> o.toNanos() >= from)
              .toList();
      stretches.add(new Stretch(
          fault,
          over,
          calm.underAdmissions().stream()
              .filter(u -> u.askedNanos() >= from && u.askedNanos() < to)
              .toList(),
          jobs.overruns().stream()
              .filter(o -> o.atNanos() >= from && o.atNanos() < to)
              .toList()));
    }
    return stretches;
  }
}
