package dev.sluice.rate;

/**
 * A {@link RateDecision} written into a holder the caller keeps, so that a decision allocates
 * nothing: {@link RateLimiter#tryAcquire(String, long, RateOutcome)} fills it and answers {@link
 * #allowed()}. The accessors read as the record's do.
 *
 * <pre>{@code
 * RateOutcome outcome = new RateOutcome(); // one per thread, reused for every decision
 * if (!perAccount.tryAcquire("account-42", 1, outcome)) {
 *   reject(outcome.retryAfterNanos());
 * }
 * }</pre>
 *
 * <p>Not thread-safe: a thread fills it and reads it back; {@link #toDecision()} makes the immutable
 * record when the answer must outlive the next decision.
 */
public final class RateOutcome {

  private boolean allowed;
  private long limit;
  private long remaining;
  private long retryAfterNanos;
  private long resetAfterNanos;
  private long delayNanos;

  /** An empty outcome (not allowed, every number 0) until a decision fills it. */
  public RateOutcome() {}

  /** Whether the request may proceed. */
  public boolean allowed() {
    return allowed;
  }

  /** The limit the decision was made against (permits per period). */
  public long limit() {
    return limit;
  }

  /** Permits left right after this decision (0 when rejected). */
  public long remaining() {
    return remaining;
  }

  /** When rejected, how long until a request of the same cost could be allowed; 0 when allowed. */
  public long retryAfterNanos() {
    return retryAfterNanos;
  }

  /** How long until the key's state is back to full capacity. */
  public long resetAfterNanos() {
    return resetAfterNanos;
  }

  /** For the shaper only: how long the caller should wait before proceeding; 0 otherwise. */
  public long delayNanos() {
    return delayNanos;
  }

  /** Copies {@code decision} into this holder (a store's answer, say); returns this. */
  public RateOutcome set(RateDecision decision) {
    allowed = decision.allowed();
    limit = decision.limit();
    remaining = decision.remaining();
    retryAfterNanos = decision.retryAfterNanos();
    resetAfterNanos = decision.resetAfterNanos();
    delayNanos = decision.delayNanos();
    return this;
  }

  /** Copies another holder's answer into this one; returns this. */
  public RateOutcome set(RateOutcome other) {
    allowed = other.allowed;
    limit = other.limit;
    remaining = other.remaining;
    retryAfterNanos = other.retryAfterNanos;
    resetAfterNanos = other.resetAfterNanos;
    delayNanos = other.delayNanos;
    return this;
  }

  /** The answer as the immutable record. */
  public RateDecision toDecision() {
    return new RateDecision(
        allowed, limit, remaining, retryAfterNanos, resetAfterNanos, delayNanos);
  }

  /** Fills in an allowed decision, as {@link RateDecision#allowed}; answers true. */
  boolean allow(long limit, long remaining, long resetAfterNanos) {
    this.allowed = true;
    this.limit = limit;
    this.remaining = remaining;
    this.retryAfterNanos = 0;
    this.resetAfterNanos = resetAfterNanos;
    this.delayNanos = 0;
    return true;
  }

  /** Fills in a rejection, as {@link RateDecision#rejected}; answers false. */
  boolean reject(long limit, long retryAfterNanos, long resetAfterNanos) {
    this.allowed = false;
    this.limit = limit;
    this.remaining = 0;
    this.retryAfterNanos = retryAfterNanos;
    this.resetAfterNanos = resetAfterNanos;
    this.delayNanos = 0;
    return false;
  }

  /** Sets the shaper's delay of an allowed decision. */
  void delay(long delayNanos) {
    this.delayNanos = delayNanos;
  }

  @Override
  public String toString() {
    return "RateOutcome[allowed=" + allowed + ", limit=" + limit + ", remaining=" + remaining
        + ", retryAfterNanos=" + retryAfterNanos + ", resetAfterNanos=" + resetAfterNanos
        + ", delayNanos=" + delayNanos + "]";
  }
}
