package dev.sluice.http;

import dev.sluice.rules.Rule;

/**
 * One rate rule in force and what it decided since start-up.
 *
 * @param rule the rule
 * @param allowed requests it let through (including those another rule then rejected)
 * @param rejected requests it rejected
 * @param shadowRejected requests a shadow rule would have rejected (counted, let through)
 * @param keys the keys (actors) the rule holds on this node now, at most {@code
 *     sluice.rules.max-keys-per-rule}; -1 when the rule is counted in the shared store
 */
public record RuleSnapshot(
    Rule rule, long allowed, long rejected, long shadowRejected, long keys) {}
