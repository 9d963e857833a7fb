package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.time.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * A queued caller: the future handed to it, plus its place in the queue.
 *
 * <p>Its fate is decided exactly once, by a CAS on {@link #fate} from {@code WAITING} to a final
 * outcome. Whoever wins the CAS owns the consequences (granting a permit, or counting a rejection),
 * so a grant racing a timeout or a cancel can neither lose the permit nor report two outcomes —
 * the capacity leak of failsafe#393 came from deciding this in two places.
 *
 * <p>Completions made by anyone but the limiter (the caller's {@code cancel}, {@code orTimeout},
 * {@code complete}) count as a cancellation: the waiter leaves the queue at once.
 */
final class Waiter extends CompletableFuture<Permit> implements WaitQueue.Entry {

  private static final VarHandle FATE;

  static {
    try {
      FATE = MethodHandles.lookup().findVarHandle(Waiter.class, "fate", Outcome.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final BoundedQueueLimiter limiter;
  private final Caller caller;
  final long enqueuedAtNanos;

  /** Null while waiting; then the one outcome that won the race. */
  @SuppressWarnings("unused") // written through FATE
  private volatile Outcome fate;

  /** The queue timeout, once scheduled; cancelled when the fate is decided otherwise. */
  private volatile Scheduler.Cancellable timeout;

  // Owned by the built-in WaitQueues and read only under the limiter's lock: prev/next link a
  // FIFO queue, or one key's waiters in a fair queue; the fair queue also links every waiter in
  // arrival order (older/newer, to find the newest for displacement) and points to its key's flow.
  Waiter prev;
  Waiter next;
  Waiter older;
  Waiter newer;
  FairWaitQueue.Flow flow;
  boolean queued;

  /** Order of joining the queue and of being granted, stamped under the lock (FIFO checks). */
  long queueSequence;

  long grantSequence;

  /**
   * rejectEarly only, stamped under the lock when it joins: how many were ahead of it, and how
   * many had left the queue before (so later departures tell how many it has moved up).
   */
  int aheadAtJoin;

  long leftBeforeJoin;

  /** Links the waiters granted by one drain, so they are dispatched after the lock is released. */
  Waiter nextGranted;

  Waiter(BoundedQueueLimiter limiter, Caller caller, long enqueuedAtNanos) {
    this.limiter = limiter;
    this.caller = caller;
    this.enqueuedAtNanos = enqueuedAtNanos;
  }

  @Override
  public Caller caller() {
    return caller;
  }

  @Override
  public long enqueuedAtNanos() {
    return enqueuedAtNanos;
  }

  /** Claims this waiter's fate; true for exactly one caller. */
  boolean decide(Outcome outcome) {
    return FATE.compareAndSet(this, (Outcome) null, outcome);
  }

  boolean isWaiting() {
    return fate == null;
  }

  /**
   * Remembers the scheduled timeout. If the fate was decided while scheduling, cancels it at once:
   * the decider read {@code timeout} as null and could not (a Dekker handshake on two volatiles).
   */
  void timeoutScheduled(Scheduler.Cancellable handle) {
    timeout = handle;
    if (fate != null) {
      handle.cancel();
    }
  }

  /** Calls off the timeout task, if any, so no dead task stays on the scheduler until its time. */
  void cancelTimeout() {
    Scheduler.Cancellable handle = timeout;
    if (handle != null) {
      handle.cancel();
    }
  }

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      limiter.abandon(this, Outcome.CANCELLED);
    }
    return cancelled;
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    boolean completed = super.completeExceptionally(ex);
    if (completed && isWaiting()) {
      limiter.abandon(this, Outcome.CANCELLED);
    }
    return completed;
  }

  @Override
  public boolean complete(Permit value) {
    boolean completed = super.complete(value);
    if (completed && isWaiting()) {
      limiter.abandon(this, Outcome.CANCELLED);
    }
    return completed;
  }

  /** Stages derived from this one are plain futures: cancelling them does not touch the queue. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }
}
