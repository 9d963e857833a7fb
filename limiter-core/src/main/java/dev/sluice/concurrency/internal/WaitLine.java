package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;

/**
 * The waiters of a local limiter: its {@link WaitQueue}, the head held back because its cost did
 * not fit, the units they will take, and the queued count in the engine's state word, which
 * change together. Not thread-safe by design, like the queue it holds: the engine ({@link
 * BoundedQueueLimiter}) calls every method under its lock, so joining, leaving from the middle
 * and granting agree with the count in the state word.
 */
final class WaitLine {

  /** Marks "a slot was freed, but nobody is left to answer" in {@link #displace}. */
  static final Waiter NOBODY = new Waiter(null, Caller.DEFAULT, 0);

  private final BoundedQueueLimiter engine;

  /** Replaced only by {@link #moveTo}. */
  private WaitQueue queue;

  /**
   * The waiter polled to be granted next whose cost did not fit in what is free. Out of the queue
   * but counted as queued; granted before anyone else.
   */
  private Waiter held;

  /**
   * The units the queued callers (held included) will take, so that a prediction counts work, not
   * heads (one job of cost 4 ahead is four jobs of cost 1).
   */
  private long queuedUnits;

  /** Callers that ever joined; with the queued count, how many have left (reject-early). */
  private long queueSequence;

  private long grantSequence;

  WaitLine(BoundedQueueLimiter engine, WaitQueue queue) {
    this.engine = engine;
    this.queue = queue;
  }

  /**
   * Puts {@code waiter}, costing {@code units} (at most the limit), in line; the engine has just
   * counted it in the state word. Returns whether the queue starts to form with it.
   */
  boolean join(Waiter waiter, int units) {
    waiter.queueSequence = queueSequence++;
    waiter.queuedUnits = units;
    queuedUnits += units;
    boolean first = queue.size() == 0;
    queue.add(waiter);
    return first;
  }

  /**
   * Grants head waiters while permits are free; {@code newestFirst} while the queue stands (see
   * {@link StandingQueue#newestFirstLocked}). Returns the granted waiters as a chain, to be
   * completed after the lock is released.
   */
  Waiter drain(boolean newestFirst) {
    Waiter first = null;
    Waiter last = null;
    for (; ; ) {
      long s = engine.state;
      if (BoundedQueueLimiter.queued(s) == 0 || BoundedQueueLimiter.inFlight(s) >= engine.limit()) {
        return first;
      }
      Waiter head =
          held != null ? held : (Waiter) (newestFirst ? queue.pollNewest() : queue.poll());
      held = null;
      int units = Math.min(head.caller().cost(), engine.limit());
      if (head.isWaiting() && BoundedQueueLimiter.inFlight(s) + units > engine.limit()) {
        // it costs more than is free: it waits here, ahead of everyone, until enough is released
        // (serving a cheaper one behind it instead would starve the costly for good)
        held = head;
        return first;
      }
      queuedUnits -= head.queuedUnits;
      // a head whose fate is already decided (cancel, timeout) is leaving on its own: skip it
      boolean grant = head.decide(Outcome.ADMITTED);
      engine.addToState(
          grant ? units - BoundedQueueLimiter.ONE_QUEUED : -BoundedQueueLimiter.ONE_QUEUED);
      if (grant) {
        head.units = units;
        head.grantSequence = grantSequence++;
        if (last == null) {
          first = head;
        } else {
          last.nextGranted = head;
        }
        last = head;
      }
    }
  }

  /**
   * Takes out a waiter whose fate was decided otherwise (timeout, cancel, a refusal on re-check).
   * Not found: a drain already polled it (and fixed the count) but lost the fate CAS. Returns true
   * if it was the held head: it kept free units from the waiters behind it, who may fit now.
   */
  boolean leave(Waiter waiter) {
    if (waiter == held) {
      held = null; // polled, but it did not fit: still counted as queued
      engine.addToState(-BoundedQueueLimiter.ONE_QUEUED);
      queuedUnits -= waiter.queuedUnits;
      return true;
    }
    if (queue.remove(waiter)) {
      engine.addToState(-BoundedQueueLimiter.ONE_QUEUED);
      queuedUnits -= waiter.queuedUnits;
    }
    return false;
  }

  /**
   * The queue is full: removes the waiter the discipline gives up for {@code newcomer} (the newest
   * of the lowest class below it), fixing the count. Returns that waiter if this call decided its
   * fate (to be answered {@link RejectionReason#DISPLACED} after the lock is released), {@link
   * #NOBODY} if it was leaving anyway (a cancel or timeout won its fate and will find it gone),
   * null if there is no one to displace.
   */
  Waiter displace(Waiter newcomer) {
    Waiter victim = (Waiter) queue.victimFor(newcomer);
    if (victim == null || !queue.remove(victim)) {
      return null;
    }
    engine.addToState(-BoundedQueueLimiter.ONE_QUEUED);
    return victim.decide(Outcome.QUEUE_FULL) ? victim : NOBODY;
  }

  /**
   * Shutdown: every waiter leaves. Returns, as a chain, those whose fate this call decided, to be
   * answered after the lock is released.
   */
  Waiter shutDown() {
    Waiter rejected = null;
    queuedUnits = 0; // every waiter leaves below
    if (held != null) {
      Waiter waiter = held;
      held = null;
      rejected = leftAtShutdown(waiter, rejected);
    }
    for (Waiter waiter = (Waiter) queue.poll(); waiter != null; waiter = (Waiter) queue.poll()) {
      rejected = leftAtShutdown(waiter, rejected);
    }
    return rejected;
  }

  private Waiter leftAtShutdown(Waiter waiter, Waiter rejected) {
    engine.addToState(-BoundedQueueLimiter.ONE_QUEUED);
    if (waiter.decide(Outcome.SHUTDOWN)) {
      waiter.nextGranted = rejected;
      return waiter;
    }
    return rejected;
  }

  /** Moves every waiter to {@code next}, in the order the old queue would grant them. */
  int moveTo(WaitQueue next) {
    if (next == queue) {
      return 0;
    }
    if (next.size() != 0) {
      throw new IllegalArgumentException("queue must be empty but holds " + next.size());
    }
    int moved = 0;
    // the queued count in the state word does not change: the same waiters, another order
    for (WaitQueue.Entry e = queue.poll(); e != null; e = queue.poll()) {
      next.add(e);
      moved++;
    }
    queue = next;
    return moved;
  }

  /** Why the discipline refuses {@code waiter} (e.g. its key is at its cap), null if it does not. */
  RejectionReason refusal(Waiter waiter) {
    return queue.refusal(waiter);
  }

  /** The waiters the discipline would grant before {@code waiter}. */
  int ahead(Waiter waiter) {
    return queue.ahead(waiter);
  }

  /** As {@link #ahead}, counting the held head too: where {@code waiter} would join. */
  int aheadAtJoin(Waiter waiter) {
    return queue.ahead(waiter) + (held != null ? 1 : 0);
  }

  /** Callers who left the line, ever, with {@code queuedNow} in it now. */
  long leftWith(int queuedNow) {
    return queueSequence - queuedNow;
  }

  long queuedUnits() {
    return queuedUnits;
  }

  /**
   * The units {@code ahead} of {@code queuedNow} queued callers will take, at the queue's mean
   * cost (exact for FIFO, where everyone queued is ahead).
   */
  double unitsOf(int ahead, int queuedNow) {
    return queuedNow <= 0 ? ahead : (double) ahead * queuedUnits / queuedNow;
  }

  QueueSnapshot snapshot(LimiterStats stats) {
    return Snapshots.queue(queue, stats);
  }
}
