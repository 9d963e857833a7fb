package dev.sluice.concurrency;

/**
 * The queue discipline: who is granted the next free permit. Today only {@link FifoWaitQueue}; a
 * fair-per-key or priority queue would implement this without the limiter changing.
 *
 * <p>Not thread-safe: the limiter calls it only while holding its lock.
 */
interface WaitQueue {

  /** Adds a waiter. */
  void add(Waiter waiter);

  /** Removes and returns the waiter to grant next, or null when empty. */
  Waiter poll();

  /**
   * Removes {@code waiter} if it is still queued (it may have been polled already).
   *
   * @return whether it was removed by this call
   */
  boolean remove(Waiter waiter);

  /** How many are waiting. */
  int size();
}
