package dev.sluice.concurrency;

/**
 * The right to run one job under a {@link ConcurrencyLimiter}. The holder must release it when the
 * job ends, however it ends; {@code try (Permit p = limiter.acquireBlocking()) { ... }} does that.
 *
 * <p>Release is idempotent: only the first call gives the permit back. (Netflix concurrency-limits'
 * listener is not, and a double release there silently raises the limit.)
 */
public interface Permit extends AutoCloseable {

  /**
   * Gives the permit back, once. If callers are waiting, the permit goes straight to the head of
   * the queue, and that waiter's future is completed on the limiter's executor, never inline on the
   * thread calling {@code release}. Later calls do nothing.
   */
  void release();

  /** Whether {@link #release()} has been called. */
  boolean isReleased();

  /** How long this caller waited in the queue before it was admitted; 0 when admitted at once. */
  long queuedNanos();

  /** Same as {@link #release()}. */
  @Override
  default void close() {
    release();
  }
}
