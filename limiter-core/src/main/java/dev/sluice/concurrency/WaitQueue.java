package dev.sluice.concurrency;

import dev.sluice.concurrency.internal.Engine;

/**
 * The queue discipline: which waiter is granted the next free permit. A public strategy: {@link
 * #fifo()} is the default; a limiter's spec names its discipline with a {@link QueueSpec} ({@link
 * QueueSpec#of} for your own).
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

  /** First come, first served: the default. Ignores keys and classes. */
  static WaitQueue fifo() {
    return Engine.fifo();
  }

  /**
   * Fair across keys, with no per-key cap and every key weighing 1: see {@link
   * #fair(FairQueueConfig)}.
   */
  static WaitQueue fair() {
    return Engine.fair(FairQueueConfig.DEFAULT);
  }

  /**
   * Fair across keys: waiters are grouped by {@link Caller#key()}, FIFO within a key, and the next
   * free permit goes round-robin across the keys that have waiters (deficit round robin: a caller
   * costs its {@link Caller#cost()}, a key earns its configured weight per round, so over any
   * window the grants per key differ by at most about one round, or are in proportion to the key
   * weights). A key at {@link FairQueueConfig#maxQueuePerKey()} is refused ({@link
   * RejectionReason#KEY_CAP}) while other keys still queue. A key with no waiter keeps no state,
   * however many keys come and go. Add, grant and removal are O(1) (hash-map operations on the
   * key).
   * Classes are ignored; see {@link #prioritized(FairQueueConfig)}.
   */
  static WaitQueue fair(FairQueueConfig config) {
    return Engine.fair(java.util.Objects.requireNonNull(config, "config must not be null"));
  }

  /**
   * Priority classes, FIFO inside each: a free permit goes to the oldest waiter of the highest
   * {@link Priority} with waiters. When the queue is full, a newcomer displaces the newest waiter
   * of the lowest class below its own: that waiter is answered at once as {@link
   * Outcome#QUEUE_FULL} with {@link RejectionReason#DISPLACED}. On purpose, under sustained
   * overload {@link Priority#SHEDDABLE} (then {@link Priority#NORMAL}) work can starve: it is
   * served only when nothing more important waits, and is the first to be displaced.
   */
  static WaitQueue prioritized() {
    return Engine.prioritized();
  }

  /**
   * Priority classes as {@link #prioritized()}, fair across keys inside each class as {@link
   * #fair(FairQueueConfig)}. The per-key cap counts a key's waiters within one class.
   */
  static WaitQueue prioritized(FairQueueConfig fairInsideEachClass) {
    java.util.Objects.requireNonNull(fairInsideEachClass, "config must not be null");
    return Engine.prioritized(fairInsideEachClass);
  }

  /** Adds an entry. */
  void add(Entry entry);

  /** Removes and returns the entry to grant next, or null when empty. */
  Entry poll();

  /**
   * Removes and returns the entry to grant next while the queue stands (see {@code
   * LimiterSpec.queueDelayTarget}): the newest, within the discipline's own order across keys and
   * classes (a fair queue picks the key as {@link #poll()} does, then that key's newest waiter; a
   * prioritized one the highest class, then its newest). By default {@link #poll()}: a discipline
   * that cannot serve newest first keeps its order, and standing waiters are still shed.
   */
  default Entry pollNewest() {
    return poll();
  }

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

  /**
   * Whether {@code entry} may not join even though the queue has room: null if it may, else why
   * not (the limiter answers {@link Outcome#QUEUE_FULL} with that reason, e.g. {@link
   * RejectionReason#KEY_CAP}). The limiter enforces {@code maxQueue} itself. Called before {@link
   * #add}; must not change the queue.
   */
  default RejectionReason refusal(Entry entry) {
    return null;
  }

  /**
   * When the queue is full: the queued entry that {@code entry} may displace, or null if none (then
   * {@code entry} is refused as queue-full). The limiter removes the victim with {@link #remove}
   * and answers it {@link Outcome#QUEUE_FULL} with {@link RejectionReason#DISPLACED}. Must not
   * change the queue.
   */
  default Entry victimFor(Entry entry) {
    return null;
  }

  /**
   * How many of class {@code priority} wait, for observability. A discipline without classes
   * reports every waiter as {@link Priority#NORMAL}.
   */
  default int size(Priority priority) {
    return priority == Priority.NORMAL ? size() : 0;
  }

  /**
   * How many keys have waiters (a key waiting in two classes counts twice); 0 for a discipline
   * without keys. For observability.
   */
  default int keys() {
    return 0;
  }
}
