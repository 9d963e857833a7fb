package dev.sluice.http;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RuleOutcomes;
import java.util.concurrent.CompletableFuture;

/**
 * What {@link AdmissionFlow#admit} found for one request, beside its {@link
 * AdmissionFlow.Verdict}: the limiter that guards it, the rules' decisions, the permit, the queue's
 * future or the refusal, the shared store's pending decision, a shaper's delay. A door may keep one
 * per thread and reuse it; it is cleared at each call of the flow, and the {@link RuleOutcomes} it
 * holds are refilled then, so a door that still needs them after the next request (a parked
 * request's headers) takes a new passage per request, as does a request that goes on later
 * ({@link AdmissionFlow#afterRules}, {@link AdmissionFlow#acquire}).
 */
public final class Passage {

  DoorLimiter limiter;
  RuleOutcomes outcomes;
  Permit permit;
  CompletableFuture<Permit> waiting;
  Throwable failure;
  Caller caller;
  boolean deadlineBinds;
  CompletableFuture<RateVerdict> pending;
  long delayNanos;
  String badRequest;
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
    pending = null;
    delayNanos = 0;
    badRequest = null;
  }

  RuleOutcomes outcomesToFill() {
    if (ownOutcomes == null) {
      ownOutcomes = new RuleOutcomes();
    }
    return ownOutcomes;
  }

  /** The limiter that guards the request, or null when none does. */
  public DoorLimiter limiter() {
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

  /**
   * The shared store's decision on the rules, with {@link AdmissionFlow.Verdict#RULES_PENDING}
   * (it never fails); else null.
   */
  public CompletableFuture<RateVerdict> pending() {
    return pending;
  }

  /** How long to hold the request, with {@link AdmissionFlow.Verdict#SHAPED}; else 0. */
  public long delayNanos() {
    return delayNanos;
  }

  /** What is wrong with the request, with {@link AdmissionFlow.Verdict#BAD_REQUEST}; else null. */
  public String badRequest() {
    return badRequest;
  }
}
