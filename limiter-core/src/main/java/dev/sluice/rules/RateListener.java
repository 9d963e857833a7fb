package dev.sluice.rules;

import dev.sluice.rate.RateOutcome;

/**
 * Callbacks for metrics. Called on the request's path, so they must be cheap; exceptions are
 * swallowed so that metrics can never fail a request.
 */
public interface RateListener {

  /**
   * One evaluated rule's decision, once the request's verdict is final: allowed, {@link
   * RuleDecision#rejects() rejected} or {@link RuleDecision#shadowRejected() shadow-rejected}. An
   * allowed decision of a request that another rule rejected had its permits given back.
   */
  default void onDecision(RuleDecision decision) {}

  /**
   * The same callback as {@link #onDecision(RuleDecision)}, as the engine makes it: {@code outcome}
   * is the engine's holder, valid only during the call. The default makes the {@link RuleDecision}
   * and passes it on; a listener on a hot path overrides this one and allocates nothing.
   */
  default void onDecision(Rule rule, RateOutcome outcome, String actorKey) {
    onDecision(new RuleDecision(rule, outcome.toDecision(), actorKey));
  }

  /** A global rule runs on this node because no shared store is configured (reported once). */
  default void onGlobalRunsLocally(Rule rule) {}
}
