package dev.sluice.rules;

import dev.sluice.rate.RateDecision;
import java.util.Objects;

/**
 * One rule's decision on one request.
 *
 * @param rule the rule
 * @param decision the algorithm's answer (for a shadow rule it may be a rejection that was not
 *     enforced)
 * @param actorKey the key the request was counted under (bounded in length; long values hashed)
 */
public record RuleDecision(Rule rule, RateDecision decision, String actorKey) {

  public RuleDecision {
    Objects.requireNonNull(rule, "rule");
    Objects.requireNonNull(decision, "decision");
    Objects.requireNonNull(actorKey, "actorKey");
  }

  /** Whether this decision alone rejects the request (a rejection by a non-shadow rule). */
  public boolean rejects() {
    return !decision.allowed() && !rule.shadow();
  }

  /** A shadow rule's rejection: would have rejected, was counted, was not enforced. */
  public boolean shadowRejected() {
    return !decision.allowed() && rule.shadow();
  }
}
