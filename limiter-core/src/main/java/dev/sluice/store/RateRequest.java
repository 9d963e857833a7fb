package dev.sluice.store;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import java.util.Objects;

/**
 * One rule's share of a request, as sent to a shared {@link RateStore}.
 *
 * @param ruleId the rule's identity; with the key it names the counted state
 * @param key the actor's key (an IP, an account...), already bounded in length
 * @param algorithm how to count
 * @param limit the global limit (the store applies this node's share itself when degraded)
 * @param cost permits this request takes, at least 1
 */
public record RateRequest(
    String ruleId, String key, Algorithm algorithm, RateLimit limit, long cost) {

  public RateRequest {
    Objects.requireNonNull(ruleId, "ruleId");
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(algorithm, "algorithm");
    Objects.requireNonNull(limit, "limit");
    if (cost < 1) {
      throw new IllegalArgumentException("cost must be >= 1 but was " + cost);
    }
  }
}
