package dev.sluice.http;

import dev.sluice.rate.RateOutcome;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Per-rule decision counts for a door's rule snapshots and its status, kept without Micrometer so
 * they are there whether or not a registry is bound. Counts by rule id, so a reload that keeps a
 * rule keeps its counts. Give it to the rules engine as its listener.
 *
 * <pre>{@code
 * RuleCounters counters = new RuleCounters();
 * RateRules rules = RateRules.builder().rules(ruleSet).listener(counters).build();
 * List<RuleSnapshot> now = counters.snapshots(rules);
 * }</pre>
 */
public final class RuleCounters implements RateListener {

  private final Map<String, Counts> byId = new ConcurrentHashMap<>();

  /** Both listeners, in order; the engine takes one. */
  public static RateListener both(RateListener a, RateListener b) {
    return new RateListener() {
      @Override
      public void onDecision(Rule rule, RateOutcome outcome, String actorKey) {
        a.onDecision(rule, outcome, actorKey);
        b.onDecision(rule, outcome, actorKey);
      }

      @Override
      public void onGlobalRunsLocally(Rule rule) {
        a.onGlobalRunsLocally(rule);
        b.onGlobalRunsLocally(rule);
      }
    };
  }

  @Override
  public void onDecision(Rule rule, RateOutcome outcome, String actorKey) {
    Counts c = byId.get(rule.id());
    if (c == null) {
      c = byId.computeIfAbsent(rule.id(), id -> new Counts());
    }
    if (!outcome.allowed() && !rule.shadow()) {
      c.rejected.increment();
    } else if (!outcome.allowed()) {
      c.shadowRejected.increment();
    } else {
      c.allowed.increment();
    }
  }

  /**
   * The counts of one rule (zeros if it decided nothing yet) and the keys it holds in {@code
   * rules} (which walks its map: for a scrape).
   */
  private RuleSnapshot snapshot(RateRules rules, Rule rule) {
    Counts c = byId.get(rule.id());
    long keys = rules.trackedKeys(rule.id()).orElse(-1);
    return c == null
        ? new RuleSnapshot(rule, 0, 0, 0, keys)
        : new RuleSnapshot(rule, c.allowed.sum(), c.rejected.sum(), c.shadowRejected.sum(), keys);
  }

  /** Every rule in force in {@code rules} (null: none) with its counts. */
  public List<RuleSnapshot> snapshots(RateRules rules) {
    return rules == null
        ? List.of()
        : rules.rules().rules().stream().map(rule -> snapshot(rules, rule)).toList();
  }

  /** Counts nothing yet. */
  public RuleCounters() {}

  private static final class Counts {
    final LongAdder allowed = new LongAdder();
    final LongAdder rejected = new LongAdder();
    final LongAdder shadowRejected = new LongAdder();
  }
}
