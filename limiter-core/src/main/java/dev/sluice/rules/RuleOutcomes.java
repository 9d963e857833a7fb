package dev.sluice.rules;

import dev.sluice.rate.RateOutcome;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The rules' answers to one request, written into a holder the caller reuses: what {@link
 * RateVerdict} says, without an object per decision. {@link RateRules#checkNow(
 * dev.sluice.request.RequestInfo, RuleOutcomes)} fills it; every earlier answer is cleared first.
 *
 * <p>Position {@code i} ({@code 0 <= i < size()}) is one rule's decision, broadest first, as in
 * {@link RateVerdict#decisions()}. Not thread-safe: a thread fills it and reads it back (one per
 * thread, or one per request); {@link #toVerdict()} makes the immutable verdict.
 */
public final class RuleOutcomes {

  private Rule[] rules = new Rule[1];
  private String[] keys = new String[1];
  private RateOutcome[] outcomes = {new RateOutcome()};
  private int size;
  private int rejected = -1;

  /** An empty holder: no rule decided, allowed. */
  public RuleOutcomes() {}

  /** Whether the request may proceed: no enforced rule rejected it. */
  public boolean allowed() {
    return rejected < 0;
  }

  /** How many rules decided the request (0: no rule guards it, or none applied). */
  public int size() {
    return size;
  }

  /** The rule at {@code i}. */
  public Rule rule(int i) {
    return rules[check(i)];
  }

  /** The answer of the rule at {@code i} (a shadow rule's may be a rejection not enforced). */
  public RateOutcome outcome(int i) {
    return outcomes[check(i)];
  }

  /** The key the rule at {@code i} counted the request under. */
  public String actorKey(int i) {
    return keys[check(i)];
  }

  /** The position of the enforced rule that rejected the request; -1 when allowed. */
  public int rejectedIndex() {
    return rejected;
  }

  /**
   * The position of the decision to show in response headers: the rejecting one, else the enforced
   * decision with the fewest remaining permits; -1 when no enforced rule decided.
   */
  public int mostRestrictiveIndex() {
    if (rejected >= 0) {
      return rejected;
    }
    int fewest = -1;
    for (int i = 0; i < size; i++) {
      if (!rules[i].shadow()
          && (fewest < 0 || outcomes[i].remaining() < outcomes[fewest].remaining())) {
        fewest = i;
      }
    }
    return fewest;
  }

  /** How long the caller should wait before proceeding (the leaky-bucket shaper); 0 usually. */
  public long delayNanos() {
    long delay = 0;
    for (int i = 0; i < size; i++) {
      if (!rules[i].shadow()) {
        delay = Math.max(delay, outcomes[i].delayNanos());
      }
    }
    return delay;
  }

  /** The decision at {@code i} as the immutable record. */
  public RuleDecision decision(int i) {
    return new RuleDecision(rule(i), outcomes[i].toDecision(), keys[i]);
  }

  /** The answer as the immutable verdict. */
  public RateVerdict toVerdict() {
    if (size == 0) {
      return RateVerdict.noRules();
    }
    List<RuleDecision> decisions = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      decisions.add(decision(i));
    }
    return new RateVerdict(
        rejected < 0,
        decisions,
        rejected < 0 ? Optional.empty() : Optional.of(decisions.get(rejected)));
  }

  /** Replaces what this holds with {@code verdict} (a verdict the shared store completed); this. */
  public RuleOutcomes set(RateVerdict verdict) {
    clear();
    List<RuleDecision> decisions = verdict.decisions();
    RuleDecision rejectedBy = verdict.rejectedBy().orElse(null);
    for (int i = 0; i < decisions.size(); i++) {
      RuleDecision d = decisions.get(i);
      add(d.rule(), d.actorKey()).set(d.decision());
      if (d.equals(rejectedBy) && rejected < 0) {
        rejected = i;
      }
    }
    return this;
  }

  @Override
  public String toString() {
    return toVerdict().toString();
  }

  /** Forgets every decision (the outcome objects stay, to be filled again). */
  void clear() {
    Arrays.fill(rules, 0, size, null);
    Arrays.fill(keys, 0, size, null);
    size = 0;
    rejected = -1;
  }

  /** A new position for {@code rule}'s decision under {@code key}: the outcome to fill. */
  RateOutcome add(Rule rule, String key) {
    if (size == rules.length) {
      int grown = size * 2;
      rules = Arrays.copyOf(rules, grown);
      keys = Arrays.copyOf(keys, grown);
      outcomes = Arrays.copyOf(outcomes, grown);
    }
    if (outcomes[size] == null) {
      outcomes[size] = new RateOutcome();
    }
    rules[size] = rule;
    keys[size] = key;
    return outcomes[size++];
  }

  /** The decision at {@code i} rejects the request. */
  void rejectedAt(int i) {
    rejected = check(i);
  }

  private int check(int i) {
    if (i < 0 || i >= size) {
      throw new IndexOutOfBoundsException("decision " + i + " of " + size);
    }
    return i;
  }
}
