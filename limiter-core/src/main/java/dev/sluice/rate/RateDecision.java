package dev.sluice.rate;

/**
 * The answer of every rate algorithm to one request.
 *
 * @param allowed whether the request may proceed
 * @param limit the limit the decision was made against (permits per period)
 * @param remaining permits left right after this decision (0 when rejected)
 * @param retryAfterNanos when rejected, how long until a request of the same cost could be allowed;
 *     0 when allowed
 * @param resetAfterNanos how long until the key's state is back to full capacity
 * @param delayNanos for the shaper only: how long the caller should wait before proceeding; 0
 *     otherwise
 */
public record RateDecision(
    boolean allowed,
    long limit,
    long remaining,
    long retryAfterNanos,
    long resetAfterNanos,
    long delayNanos) {

  public RateDecision {
    if (limit < 0
        || remaining < 0
        || retryAfterNanos < 0
        || resetAfterNanos < 0
        || delayNanos < 0) {
      throw new IllegalArgumentException("decision fields must not be negative: " + limit + ", "
          + remaining + ", " + retryAfterNanos + ", " + resetAfterNanos + ", " + delayNanos);
    }
  }

  public static RateDecision allowed(long limit, long remaining, long resetAfterNanos) {
    return new RateDecision(true, limit, remaining, 0, resetAfterNanos, 0);
  }

  public static RateDecision rejected(long limit, long retryAfterNanos, long resetAfterNanos) {
    return new RateDecision(false, limit, 0, retryAfterNanos, resetAfterNanos, 0);
  }
}
