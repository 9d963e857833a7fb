package dev.sluice.http;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.PathLimiter;
import dev.sluice.rules.RuleOutcomes;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link AdmissionFlow#admit} found for one request, beside its {@link
 * AdmissionFlow.Verdict}: the limiter that guards it, the rules' decisions, the permit, the queue's
 * future or the refusal. A door may keep one per thread and reuse it; it is cleared at each {@link
 * AdmissionFlow#admit}, and the {@link RuleOutcomes} it holds are refilled then, so a door that
 * still needs them after the next request (a parked request's headers) takes a new passage per
 * request.
 */
public final class Passage {

  PathLimiter limiter;
  RuleOutcomes outcomes;
  Permit permit;
  CompletableFuture<Permit> waiting;
  Throwable failure;
  Caller caller;
  boolean deadlineBinds;
  private RuleOutcomes ownOutcomes; // made on the first ruled request, then refilled

  /** An empty passage. */
  public Passage() {}

  void clear() {
    limiter = null;
    outcomes = null;
    permit = null;
    waiting = null;
    failure = null;
    caller = null;
    deadlineBinds = false;
  }

  RuleOutcomes outcomesToFill() {
    if (ownOutcomes == null) {
      ownOutcomes = new RuleOutcomes();
    }
    return ownOutcomes;
  }

  /** The limiter that guards the request, or null when none does. */
  public PathLimiter limiter() {
    return limiter;
  }

  /** The rules' decisions, or null when no rule decided (none guards the path, or they failed). */
  public RuleOutcomes outcomes() {
    return outcomes;
  }

  /** The permit held, with {@link AdmissionFlow.Verdict#ADMITTED}; else null. */
  public Permit permit() {
    return permit;
  }

  /** The queue's future, with {@link AdmissionFlow.Verdict#WAITING}; else null. */
  public CompletableFuture<Permit> waiting() {
    return waiting;
  }

  /** Why the limiter refused at once, with {@link AdmissionFlow.Verdict#REFUSED}; else null. */
  public Throwable failure() {
    return failure;
  }

  /**
   * Who asked the limiter (class, key, timeout) when it could not grant at once; null when the
   * permit was free or the limiter was not asked.
   */
  public Caller caller() {
    return caller;
  }

  /**
   * True when the request's own deadline, not the limiter's queue timeout, bounds its wait: a
   * refusal for a predicted wait is then the caller's deadline that cannot be met.
   */
  public boolean deadlineBinds() {
    return deadlineBinds;
  }
}
