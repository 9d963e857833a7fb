package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.IntUnaryOperator;

/**
 * What a local limiter does with a caller that cannot run at once: join the queue, or be refused
 * at arrival (queue full, its key at its cap, a predicted wait past its timeout), displacing a
 * lower class to make room; and, while it waits, its timeout and the re-checks that may refuse it
 * later (predicted wait, {@link StandingQueue standing queue}). The engine ({@link
 * BoundedQueueLimiter}) moves permits and waiters; this decides. Each waiter's fate is still
 * decided by one CAS in the engine ({@link PendingPermit#decide}), so a grant racing a refusal
 * decided here wins or loses whole.
 *
 * <p>Settings are volatile and read once per decision: {@link Reconfigurer} changes them for
 * newcomers, while callers queued keep their place.
 */
final class AdmissionPolicy {

  private static final long MAX_FALLBACK_SERVICE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** What the engine does next with a caller looked at under its lock. */
  enum Verdict {
    /** Joins the queue (if the state word did not change meanwhile). */
    JOIN,
    /** Refused at arrival: the reason is in its {@link Arrival}. */
    REFUSE,
    /** A waiter was displaced to make room: the engine reads the state word again. */
    LOOK_AGAIN
  }

  private final BoundedQueueLimiter engine;
  private final WaitLine line;
  private final NanoClock clock;
  private final Scheduler scheduler;
  private final WaitPrediction prediction;
  final StandingQueue standing;

  private volatile int maxQueue;

  private volatile long queueTimeoutNanos;

  /** Callers who cannot be served in time are told at once; read per slow path. */
  private volatile boolean rejectEarly;

  /**
   * The waiters {@link #maxQueue} bounds beside the queue, from the units in flight: a {@link
   * GlobalLimiter}'s callers that hold a permit of this stage while they wait for a lease. None on a
   * local limiter. Read under the lock when a caller would join the queue.
   */
  private volatile IntUnaryOperator waitingOutside = inFlight -> 0;

  AdmissionPolicy(
      BoundedQueueLimiter engine, WaitLine line, LimiterSpec spec, WaitPrediction prediction) {
    this.engine = engine;
    this.line = line;
    this.clock = engine.clock;
    this.scheduler = engine.scheduler;
    this.prediction = prediction;
    this.maxQueue = spec.maxQueue();
    this.queueTimeoutNanos = saturatedNanos(spec.queueTimeout());
    if (spec.expectedServiceTime().isPresent()) {
      seed(spec.expectedServiceTime().get());
    }
    this.rejectEarly = spec.rejectEarly();
    this.standing = new StandingQueue(
        engine,
        line,
        spec.queueDelayTarget().map(AdmissionPolicy::saturatedNanos).orElse(0L));
  }

  /** A caller arrives on the slow path: what is read before the lock (it sums striped counters). */
  Arrival arrive(Waiter waiter) {
    long timeoutNanos = timeoutNanos(waiter.caller(), queueTimeoutNanos);
    boolean early = rejectEarly; // read once: a reconfiguration may turn it on or off meanwhile
    long meanServiceNanos = early ? prediction.serviceBoundNanos(waiter.enqueuedAtNanos) : -1;
    long firstTurnNanos = meanServiceNanos < 0
        ? -1
        : prediction.firstTurnNanos(waiter.enqueuedAtNanos, meanServiceNanos);
    double margin = early ? prediction.margin() : 1;
    return new Arrival(waiter, timeoutNanos, early, meanServiceNanos, firstTurnNanos, margin);
  }

  /** The queue bound a caller is held to; read once per arrival (see {@link #decideLocked}). */
  int maxQueue() {
    return maxQueue;
  }

  /**
   * Whether a caller that cannot run now joins the queue, for state word {@code s}: refused when
   * the discipline refuses it (e.g. its key is at its cap), when every waiting place under {@code
   * bound} is taken and nobody can be displaced, or when its predicted wait exceeds its timeout.
   * Caller holds the lock.
   */
  Verdict decideLocked(Arrival arrival, long s, int bound) {
    Waiter waiter = arrival.waiter;
    int queuedNow = BoundedQueueLimiter.queued(s);
    RejectionReason reason = line.refusal(waiter); // e.g. its key is at its cap
    int room = bound - waitingOutside.applyAsInt(BoundedQueueLimiter.inFlight(s));
    if (reason == null && queuedNow >= room) {
      if (arrival.displaced == null && queuedNow == room) {
        arrival.displaced = line.displace(waiter);
        if (arrival.displaced != null) {
          return Verdict.LOOK_AGAIN; // one slot freed; look at the word again
        }
      }
      reason = RejectionReason.QUEUE_FULL;
    }
    if (reason != null) {
      arrival.refuse(Outcome.QUEUE_FULL, reason, line.ahead(waiter));
      return Verdict.REFUSE;
    }
    if (arrival.early && predictedTooLong(arrival, queuedNow)) {
      return Verdict.REFUSE;
    }
    return Verdict.JOIN;
  }

  /** Reject-early at arrival: stamps where it would join, and refuses if it cannot be served in time. */
  private boolean predictedTooLong(Arrival arrival, int queuedNow) {
    Waiter waiter = arrival.waiter;
    waiter.aheadAtJoin = line.aheadAtJoin(waiter);
    waiter.leftBeforeJoin = line.leftWith(queuedNow);
    if (arrival.meanServiceNanos < 0) {
      return false;
    }
    long wait = WaitPrediction.waitNanos(
        line.unitsOf(waiter.aheadAtJoin, queuedNow),
        Math.min(arrival.units, engine.limit()),
        engine.exactLimit(),
        arrival.meanServiceNanos,
        arrival.firstTurnNanos);
    // with the margin: a re-check then refuses a waiter only once the plain prediction
    // no longer fits, not at the next wobble (see WaitPrediction)
    if (wait > arrival.timeoutNanos / arrival.margin) {
      arrival.refuse(Outcome.QUEUE_FULL, RejectionReason.PREDICTED_WAIT, 0);
      arrival.predictedWait = wait;
      return true;
    }
    return false;
  }

  /**
   * A caller joined the queue: schedules its timeout, or with reject-early or standing-queue
   * control its first check. Scheduled outside the lock; a grant that wins meanwhile cancels it
   * (Waiter#timeoutScheduled).
   */
  void watch(Arrival arrival) {
    Waiter waiter = arrival.waiter;
    long timeoutNanos = arrival.timeoutNanos;
    long target = standing.targetNanos();
    if (!waiter.isWaiting() || (timeoutNanos == Long.MAX_VALUE && target <= 0)) {
      return;
    }
    if (arrival.early || target > 0) {
      long deadline =
          timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE : waiter.enqueuedAtNanos + timeoutNanos;
      waiter.timeoutScheduled(scheduler.schedule(
          () -> check(waiter, deadline),
          nextCheckNanos(waiter, timeoutNanos, arrival.early, target, clock.nanoTime())));
    } else {
      waiter.timeoutScheduled(
          scheduler.schedule(() -> engine.abandon(waiter, Outcome.QUEUE_TIMEOUT), timeoutNanos));
    }
  }

  /**
   * rejectEarly or standing-queue control: a queued waiter's timeout task. Times it out at its
   * deadline; before that, sheds it from a standing queue, or rejects it with PREDICTED_WAIT once
   * the work still ahead of it cannot be served in time, else looks again later. Its fate is still
   * decided by one CAS in the engine's abandon, so a grant racing this check wins or loses whole.
   */
  private void check(Waiter waiter, long deadline) {
    if (!waiter.isWaiting()) {
      return;
    }
    long now = clock.nanoTime();
    long remaining = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - now;
    if (remaining <= 0) {
      engine.abandon(waiter, Outcome.QUEUE_TIMEOUT);
      return;
    }
    long target = standing.targetNanos();
    if (standing.sheds(waiter, now, target)) {
      // the queue stands and this waiter has waited its share: a 429 now, not a 504 later
      engine.abandon(
          waiter,
          Outcome.QUEUE_FULL,
          RejectionReason.STANDING_QUEUE,
          retryAfterNanos(BoundedQueueLimiter.queued(engine.state)));
      return;
    }
    boolean early = rejectEarly;
    long mean = early ? prediction.serviceBoundNanos(now) : -1;
    if (mean >= 0 && remaining != Long.MAX_VALUE) {
      long wait = predictedWaitNanos(waiter, now, mean);
      if (wait > remaining) {
        engine.abandon(waiter, Outcome.QUEUE_FULL, RejectionReason.PREDICTED_WAIT, wait);
        return;
      }
    }
    waiter.timeoutScheduled(scheduler.schedule(
        () -> check(waiter, deadline), nextCheckNanos(waiter, remaining, early, target, now)));
  }

  /** The wait still ahead of a queued waiter, from the work that was ahead of it when it joined. */
  private long predictedWaitNanos(Waiter waiter, long now, long mean) {
    double aheadUnits;
    engine.lock.lock();
    try {
      int queuedNow = BoundedQueueLimiter.queued(engine.state);
      long left = line.leftWith(queuedNow);
      // every departure since it joined counts as one fewer ahead, also those behind it: this
      // can only predict too short a wait, so it never rejects a waiter that could have made it
      int ahead = (int) Math.max(0, waiter.aheadAtJoin - (left - waiter.leftBeforeJoin));
      aheadUnits = line.unitsOf(ahead, queuedNow);
    } finally {
      engine.lock.unlock();
    }
    return WaitPrediction.waitNanos(
        aheadUnits,
        waiter.queuedUnits,
        engine.exactLimit(),
        mean,
        prediction.firstTurnNanos(now, mean));
  }

  /**
   * When a queued waiter is looked at next: its deadline; sooner with reject-early (a re-check
   * every 50-500 ms) and with standing-queue control (see {@link StandingQueue#nextCheckNanos}).
   */
  private long nextCheckNanos(Waiter waiter, long remaining, boolean early, long target, long now) {
    long next = remaining;
    if (early && remaining != Long.MAX_VALUE) {
      next = Math.min(next, WaitPrediction.recheckDelayNanos(remaining));
    }
    if (target > 0) {
      next = Math.min(next, standing.nextCheckNanos(waiter, now, target));
    }
    return Math.max(0, next);
  }

  /** Retry-After for a refusal with {@code queuedAhead} callers ahead, from the service times. */
  long retryAfterNanos(int queuedAhead) {
    return retryAfterNanos(engine.stats, queuedAhead, engine.limit(), queueTimeoutNanos);
  }

  /**
   * Retry-After from {@code stats}' service times under {@code limit}; before any is known, the
   * shorter of the queue timeout and a second. A local and a global limiter estimate alike.
   */
  static long retryAfterNanos(
      LimiterStats stats, int queuedAhead, int limit, long queueTimeoutNanos) {
    long fallback = Math.min(queueTimeoutNanos, MAX_FALLBACK_SERVICE_NANOS);
    return stats.retryAfterNanos(queuedAhead, limit, fallback);
  }

  /**
   * The shorter of the caller's own timeout and the limiter's ({@code limiterNanos}), in
   * nanoseconds (saturated); a local and a global limiter bound a wait alike.
   */
  static long timeoutNanos(Caller caller, long limiterNanos) {
    Duration own = caller.timeout();
    if (own == null) {
      return limiterNanos;
    }
    return Math.min(saturatedNanos(own), limiterNanos);
  }

  /** Set once by the {@link GlobalLimiter} this is the local stage of; see the field. */
  void countWaitingOutside(IntUnaryOperator waiting) {
    waitingOutside = waiting;
  }

  // the settings a reconfiguration changes, for newcomers

  void maxQueue(int bound) {
    maxQueue = bound; // callers queued keep their place
  }

  void queueTimeout(Duration timeout) {
    queueTimeoutNanos = saturatedNanos(timeout);
  }

  void rejectEarly(boolean on) {
    rejectEarly = on;
  }

  void queueDelayTarget(long targetNanos) {
    standing.targetNanos(
        targetNanos); // newcomers are checked against it; waiters at their next check
  }

  /** Seeds the wait prediction with an expected service time, zero: none (WaitPrediction#seed). */
  boolean seed(Duration expected) {
    return prediction.seed(saturatedNanos(expected));
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE; // a timeout of centuries means "never"
    }
  }
}
