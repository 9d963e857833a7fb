package dev.sluice.rules;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The engine's answer to one request.
 *
 * @param allowed whether the request may proceed
 * @param decisions every rule evaluated, broadest first, shadow rejections included; rules after the
 *     rejecting one are not evaluated (and counted nothing)
 * @param rejectedBy the enforced rule that rejected the request, when not allowed
 */
public record RateVerdict(
    boolean allowed, List<RuleDecision> decisions, Optional<RuleDecision> rejectedBy) {

  private static final RateVerdict NO_RULES = new RateVerdict(true, List.of(), Optional.empty());

  public RateVerdict {
    decisions = List.copyOf(decisions);
    Objects.requireNonNull(rejectedBy, "rejectedBy");
    if (allowed == rejectedBy.isPresent()) {
      throw new IllegalArgumentException("a verdict is rejected exactly when a rule rejected it");
    }
  }

  /** The verdict for a request no rule guards. */
  public static RateVerdict noRules() {
    return NO_RULES;
  }

  /**
   * The decision to show in response headers: the rejecting one, else the enforced decision with the
   * fewest remaining permits.
   */
  public Optional<RuleDecision> mostRestrictive() {
    return rejectedBy.isPresent() ? rejectedBy : Optional.ofNullable(mostRestrictiveOrNull());
  }

  /**
   * {@link #mostRestrictive()} without the {@code Optional}, for code that runs on every request:
   * null when no enforced rule decided.
   */
  public RuleDecision mostRestrictiveOrNull() {
    if (rejectedBy.isPresent()) {
      return rejectedBy.get();
    }
    // indexed loops, not iterators or streams: response headers ask on every request
    RuleDecision fewest = null;
    for (int i = 0; i < decisions.size(); i++) {
      RuleDecision d = decisions.get(i);
      if (!d.rule().shadow()
          && (fewest == null || d.decision().remaining() < fewest.decision().remaining())) {
        fewest = d;
      }
    }
    return fewest;
  }

  /** How long the caller should wait before proceeding (the leaky-bucket shaper); 0 usually. */
  public long delayNanos() {
    long delay = 0;
    for (int i = 0; i < decisions.size(); i++) {
      RuleDecision d = decisions.get(i);
      if (!d.rule().shadow()) {
        delay = Math.max(delay, d.decision().delayNanos());
      }
    }
    return delay;
  }
}
