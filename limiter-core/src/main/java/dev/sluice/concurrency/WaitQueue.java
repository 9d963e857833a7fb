package dev.sluice.concurrency;

/**
 * The queue discipline: which waiter is granted the next free permit. A public strategy: {@link
 * #fifo()} is the default; a discipline is set with {@link ConcurrencyLimiter.Builder#waitQueue}.
 *
 * <p><b>Threading.</b> Not thread-safe by design: the limiter calls every method while holding its
 * own lock, so an implementation needs no synchronisation of its own and must never block, call
 * out to user code, or call back into the limiter.
 *
 * <p><b>Contract.</b> Every entry added is returned by {@link #poll()} at most once, and an entry
 * removed by {@link #remove} is never polled. The limiter keeps the count of queued callers, so
 * {@link #size()} must agree with adds minus polls minus successful removes.
 *
 * <p>One instance serves one limiter; do not share it.
 */
public interface WaitQueue {

  /** A queued caller, as a discipline sees it. */
  interface Entry {

    /** Who is waiting: key, class, weight. */
    Caller caller();

    /** When it joined the queue, on the limiter's clock. */
    long enqueuedAtNanos();
  }

  /** First come, first served: the default. */
  static WaitQueue fifo() {
    return new FifoWaitQueue();
  }

  /** Adds an entry. */
  void add(Entry entry);

  /** Removes and returns the entry to grant next, or null when empty. */
  Entry poll();

  /**
   * Removes {@code entry} if it is still queued (it may have been polled already).
   *
   * @return whether it was removed by this call
   */
  boolean remove(Entry entry);

  /** How many are waiting. */
  int size();

  /**
   * How many queued entries would be granted before {@code entry} if it joined now (for FIFO, all
   * of them). The limiter uses it to predict a newcomer's wait ({@code Retry-After}, early
   * rejection), so a critical caller's prediction is not the whole queue's. An estimate is fine;
   * it must be cheap.
   */
  default int ahead(Entry entry) {
    return size();
  }
}
