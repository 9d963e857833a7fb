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
    if (rejectedBy.isPresent()) {
      return rejectedBy;
    }
    RuleDecision fewest = null; // a loop, not a stream: response headers ask on every request
    for (RuleDecision d : decisions) {
      if (!d.rule().shadow()
          && (fewest == null || d.decision().remaining() < fewest.decision().remaining())) {
        fewest = d;
      }
    }
    return Optional.ofNullable(fewest);
  }

  /** How long the caller should wait before proceeding (the leaky-bucket shaper); 0 usually. */
  public long delayNanos() {
    long delay = 0;
    for (RuleDecision d : decisions) {
      if (!d.rule().shadow()) {
        delay = Math.max(delay, d.decision().delayNanos());
      }
    }
    return delay;
  }
}
