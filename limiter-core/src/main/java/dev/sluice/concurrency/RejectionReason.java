package dev.sluice.concurrency;

/**
 * Why a caller was turned away, finer than its {@link Outcome}: the HTTP layer and the metrics use
 * it to tell a full queue from a tenant over its own cap or a waiter displaced by a higher class.
 */
public enum RejectionReason {
  /** Every permit taken and the queue full ({@link Outcome#QUEUE_FULL}). */
  QUEUE_FULL,
  /** The caller's key already has its most waiters queued ({@link Outcome#QUEUE_FULL}). */
  KEY_CAP,
  /**
   * Was queued, and made room for a caller of a higher {@link Priority} when the queue was full
   * ({@link Outcome#QUEUE_FULL}).
   */
  DISPLACED,
  /**
   * The predicted wait exceeds what the caller may wait: answered at once instead of a timeout
   * later ({@link Outcome#QUEUE_FULL}).
   */
  PREDICTED_WAIT,
  /**
   * Was queued while the queue stood above its delay target and had waited the target: shed so
   * that newer callers are served first, instead of a timeout later ({@link Outcome#QUEUE_FULL}).
   */
  STANDING_QUEUE,
  /** Waited past its timeout ({@link Outcome#QUEUE_TIMEOUT}). */
  QUEUE_TIMEOUT,
  /** The limiter is shut down ({@link Outcome#SHUTDOWN}). */
  SHUTDOWN;

  /** The reason a rejection with this outcome has when nothing more specific is known. */
  public static RejectionReason of(Outcome outcome) {
    return switch (outcome) {
      case QUEUE_FULL -> QUEUE_FULL;
      case QUEUE_TIMEOUT -> QUEUE_TIMEOUT;
      case SHUTDOWN -> SHUTDOWN;
      default ->
        throw new IllegalArgumentException("outcome must be a rejection but was " + outcome);
    };
  }
}
