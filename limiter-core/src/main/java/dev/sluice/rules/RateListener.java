package dev.sluice.rules;

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

  /** A global rule runs on this node because no shared store is configured (reported once). */
  default void onGlobalRunsLocally(Rule rule) {}
}
