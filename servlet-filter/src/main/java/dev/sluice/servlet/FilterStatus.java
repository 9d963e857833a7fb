package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.CpuSignals;
import dev.sluice.config.PathLimiter;
import dev.sluice.http.History;
import dev.sluice.http.QueueWaits;
import dev.sluice.http.RuleCounters;
import dev.sluice.http.RuleSnapshot;
import dev.sluice.http.StatusReport;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RateRules;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.util.List;

/**
 * What the filter's status and live page read: the limiters, their recent queue waits, the rules'
 * counts and, once the live page is asked for, its series ({@link History}, sampled on the
 * filter's scheduler from then on, as the plugin samples it while its page is on).
 */
final class FilterStatus {

  private final QueueWaits waits;
  private final RuleCounters ruleCounters = new RuleCounters();
  private final NanoClock clock;
  private final Scheduler scheduler;
  private final CpuSignals cpu;
  private volatile List<StatusLimiter> limiters = List.of();
  private volatile RateRules rules;
  private volatile StatusReport report; // null until the door is built
  private History history; // null until the live page is asked for; guarded by this

  FilterStatus(NanoClock clock, Scheduler scheduler, CpuSignals cpu) {
    this.clock = clock;
    this.scheduler = scheduler;
    this.cpu = cpu;
    this.waits = new QueueWaits(clock);
  }

  /** What the limiters tell the status (recent queue waits), beside {@code metrics} (or null). */
  ConcurrencyListener limiterListener(ConcurrencyListener metrics) {
    return metrics == null ? waits : QueueWaits.both(metrics, waits);
  }

  /** What the rules tell the status (their counts), beside {@code metrics} (or null). */
  RateListener ruleListener(RateListener metrics) {
    return metrics == null ? ruleCounters : RuleCounters.both(metrics, ruleCounters);
  }

  /** The door is built: its limiters and rules (null: none). */
  synchronized void built(List<PathLimiter> pathLimiters, RateRules rateRules) {
    this.limiters = pathLimiters.stream().map(StatusLimiter::new).toList();
    this.rules = rateRules;
    this.report = new StatusReport(limiters, waits, history, ruleCounters, rules, null);
  }

  /** Starts the live page's series (once), so the status carries the CPU and the last minutes. */
  synchronized void keepHistory() {
    if (history != null || report == null) {
      return;
    }
    history = new History(
        limiters.stream().map(StatusLimiter::limiter).toList(),
        cpu,
        clock,
        History.RESOLUTION,
        History.POINTS);
    history.start(scheduler);
    report = new StatusReport(limiters, waits, history, ruleCounters, rules, null);
  }

  /** The status now; the disabled document for a filter that is off. */
  String json(boolean enabled) {
    StatusReport r = report;
    long now = System.currentTimeMillis();
    return !enabled || r == null ? StatusReport.disabled(now) : r.json(now);
  }

  List<RuleSnapshot> ruleSnapshots() {
    return ruleCounters.snapshots(rules);
  }

  synchronized void close() {
    if (history != null) {
      history.close();
    }
  }
}
