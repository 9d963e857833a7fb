package dev.sluice.concurrency;

/**
 * A caller was not admitted: the cause of a failed {@link ConcurrencyLimiter#acquire()} future, or
 * thrown by {@link ConcurrencyLimiter#acquireBlocking()}. A cancelled caller sees a {@link
 * java.util.concurrent.CancellationException} instead, as {@code CompletableFuture} mandates.
 *
 * <p>Carries no stack trace: rejections are routine under load, and filling a trace per rejected
 * request would make overload more expensive exactly when the node can least afford it.
 */
public final class ConcurrencyRejectedException extends RuntimeException {

  private static final long serialVersionUID = 1L;

  private final transient Outcome outcome;
  private final transient RejectionReason reason;
  private final String limiterName;
  private final long retryAfterNanos;

  /**
   * @param outcome why: {@code QUEUE_FULL}, {@code QUEUE_TIMEOUT} or {@code SHUTDOWN}
   * @param limiterName the limiter that rejected
   * @param retryAfterNanos estimated delay before a retry could be admitted, at least 0
   */
  public ConcurrencyRejectedException(Outcome outcome, String limiterName, long retryAfterNanos) {
    this(outcome, RejectionReason.of(outcome), limiterName, retryAfterNanos);
  }

  /**
   * @param outcome why: {@code QUEUE_FULL}, {@code QUEUE_TIMEOUT} or {@code SHUTDOWN}
   * @param reason the finer reason, e.g. {@link RejectionReason#KEY_CAP} for a queue-full answer
   * @param limiterName the limiter that rejected
   * @param retryAfterNanos estimated delay before a retry could be admitted, at least 0
   */
  public ConcurrencyRejectedException(
      Outcome outcome, RejectionReason reason, String limiterName, long retryAfterNanos) {
    super(
        "limiter '" + limiterName + "' rejected the request: " + outcome
            + (reason == RejectionReason.of(outcome) ? "" : " (" + reason + ")"),
        null,
        false,
        false);
    if (outcome == Outcome.ADMITTED || outcome == Outcome.CANCELLED) {
      throw new IllegalArgumentException("outcome must be a rejection but was " + outcome);
    }
    this.reason = java.util.Objects.requireNonNull(reason, "reason must not be null");
    this.outcome = outcome;
    this.limiterName = limiterName;
    this.retryAfterNanos = Math.max(0, retryAfterNanos);
  }

  /** {@code QUEUE_FULL}, {@code QUEUE_TIMEOUT} or {@code SHUTDOWN}. */
  public Outcome outcome() {
    return outcome;
  }

  /** The finer reason; {@link RejectionReason#of(Outcome)} when nothing more specific applies. */
  public RejectionReason reason() {
    return reason;
  }

  /** The name of the limiter that rejected. */
  public String limiterName() {
    return limiterName;
  }

  /**
   * An estimate of how long until a retry could be admitted, for {@code Retry-After}: the observed
   * mean service time x (callers queued ahead + 1) / limit. At least 0.
   */
  public long retryAfterNanos() {
    return retryAfterNanos;
  }
}
