package dev.sluice.concurrency;

/**
 * Callbacks for metrics and logging. They are called on the hot path, on whatever thread caused
 * the event (a caller, a releaser, the scheduler): they must be cheap and must not block. An
 * exception thrown by a callback is swallowed so that a broken metrics binding cannot leak permits.
 */
public interface ConcurrencyListener {

  /** A permit was granted; {@code queuedNanos} is 0 when it was granted at once. */
  default void onAdmitted(String limiter, long queuedNanos) {}

  /** A caller joined the queue. */
  default void onQueued(String limiter) {}

  /**
   * A caller was not admitted: {@code QUEUE_FULL}, {@code QUEUE_TIMEOUT}, {@code CANCELLED} or
   * {@code SHUTDOWN}; {@code waitedNanos} is how long it was queued (0 for {@code QUEUE_FULL}).
   */
  default void onRejected(String limiter, Outcome outcome, long waitedNanos) {}

  /**
   * A caller was not admitted, with the finer reason (e.g. {@link RejectionReason#KEY_CAP} or
   * {@link RejectionReason#DISPLACED} for a {@code QUEUE_FULL}; {@code waitedNanos} is how long a
   * displaced waiter was queued). The limiter calls this one; by default it calls {@link
   * #onRejected(String, Outcome, long)}, so a listener overrides one or the other. {@code reason}
   * is null for {@code CANCELLED}.
   */
  default void onRejected(
      String limiter, Outcome outcome, RejectionReason reason, long waitedNanos) {
    onRejected(limiter, outcome, waitedNanos);
  }

  /** A permit was released after being held for {@code serviceNanos}. */
  default void onReleased(String limiter, long serviceNanos) {}
}
