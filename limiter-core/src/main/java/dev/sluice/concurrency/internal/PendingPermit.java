package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.time.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.CompletableFuture;

/**
 * A caller's future permit whose fate is decided exactly once, by a CAS from "waiting" to a final
 * outcome: the queued {@link Waiter} of a local limiter and the {@link GlobalAcquire} of a global
 * one. Whoever wins the CAS owns the consequences (granting a permit, or counting a rejection), so
 * a grant racing a timeout or a cancel can neither lose the permit nor report two outcomes; the
 * capacity leak of failsafe#393 came from deciding this in two places.
 *
 * <p>Completions made by anyone but the limiter (the caller's {@code cancel}, {@code orTimeout},
 * {@code complete}) count as a cancellation: the caller leaves the queue or line at once, through
 * {@link #abandoned()}.
 */
abstract class PendingPermit extends CompletableFuture<Permit> {

  private static final VarHandle FATE;

  static {
    try {
      FATE = MethodHandles.lookup().findVarHandle(PendingPermit.class, "fate", Outcome.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  /** Null while waiting; then the one outcome that won the race. */
  @SuppressWarnings("unused") // written through FATE
  private volatile Outcome fate;

  /** The timeout task, once scheduled; cancelled when the fate is decided otherwise. */
  private volatile Scheduler.Cancellable timeout;

  /** Claims this caller's fate; true for exactly one claimant. */
  final boolean decide(Outcome outcome) {
    return FATE.compareAndSet(this, (Outcome) null, outcome);
  }

  final boolean isWaiting() {
    return fate == null;
  }

  /**
   * Remembers the scheduled timeout. If the fate was decided while scheduling, cancels it at once:
   * the decider read {@code timeout} as null and could not (a Dekker handshake on two volatiles).
   */
  final void timeoutScheduled(Scheduler.Cancellable handle) {
    timeout = handle;
    if (fate != null) {
      handle.cancel();
    }
  }

  /** Calls off the timeout task, if any, so no dead task stays on the scheduler until its time. */
  final void cancelTimeout() {
    Scheduler.Cancellable handle = timeout;
    if (handle != null) {
      handle.cancel();
    }
  }

  /** The caller completed this future itself while waiting: leave, as {@code CANCELLED}. */
  abstract void abandoned();

  @Override
  public boolean cancel(boolean mayInterruptIfRunning) {
    boolean cancelled = super.cancel(mayInterruptIfRunning);
    if (cancelled) {
      abandoned();
    }
    return cancelled;
  }

  @Override
  public boolean completeExceptionally(Throwable ex) {
    boolean completed = super.completeExceptionally(ex);
    if (completed && isWaiting()) {
      abandoned();
    }
    return completed;
  }

  @Override
  public boolean complete(Permit value) {
    boolean completed = super.complete(value);
    if (completed && isWaiting()) {
      abandoned();
    }
    return completed;
  }

  /** Stages derived from this one are plain futures: cancelling them does not touch the line. */
  @Override
  public <U> CompletableFuture<U> newIncompleteFuture() {
    return new CompletableFuture<>();
  }
}
