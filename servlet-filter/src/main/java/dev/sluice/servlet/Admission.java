package dev.sluice.servlet;

import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.rules.RuleOutcomes;
import java.util.concurrent.CompletableFuture;

/**
 * One request's way through the filter, kept as a request attribute: the permit it holds, released
 * exactly once whichever way the request ends, or, while it waits, the limiter's future it waits
 * on. A permit that arrives after the request is over (a grant racing a client that went away) is
 * released on arrival.
 */
final class Admission {

  static final String ATTRIBUTE = "dev.sluice.servlet.Admission";

  private final DoorLimiter limiter;
  private final CompletableFuture<Permit> waiting; // null: admitted at once
  private final RuleOutcomes outcomes; // null: no rule decided; its headers wait for admission
  // a plain lock: the only contention is a late grant racing the request's end, which is rare
  private Permit permit;
  private boolean resumable;
  private boolean over;
  private boolean leftQueue;

  Admission(DoorLimiter limiter, Permit permit, RuleOutcomes outcomes) {
    this.limiter = limiter;
    this.permit = permit;
    this.waiting = null;
    this.outcomes = outcomes;
  }

  Admission(DoorLimiter limiter, CompletableFuture<Permit> waiting, RuleOutcomes outcomes) {
    this.limiter = limiter;
    this.waiting = waiting;
    this.outcomes = outcomes;
  }

  DoorLimiter limiterEntry() {
    return limiter;
  }

  RuleOutcomes outcomes() {
    return outcomes;
  }

  /**
   * Takes a request that still waits out of the limiter's queue (the limiter counts it cancelled
   * and gives its place to the next); true only for the call that did, once: false for a request
   * admitted at once, one whose permit came first, or one that left already.
   */
  boolean leaveQueue() {
    synchronized (this) {
      if (waiting == null || leftQueue) {
        return false;
      }
      leftQueue = true;
    }
    // outside the lock: a cancelled waiter's place goes to the next (limiter code)
    return waiting.cancel(false);
  }

  /**
   * Keeps the permit until {@link #release()}, and lets the next dispatch {@link #resume}; false
   * (and the permit released) when the request is already over.
   */
  boolean hold(Permit granted) {
    synchronized (this) {
      if (!over) {
        permit = granted;
        resumable = true;
        return true;
      }
    }
    granted.release();
    return false;
  }

  /** True once, for the dispatch that resumes the request after its permit came. */
  synchronized boolean resume() {
    boolean r = resumable && !over;
    resumable = false;
    return r;
  }

  /** Gives back the permit, once; a later grant is released on arrival. */
  void release() {
    Permit held;
    synchronized (this) {
      if (over) {
        return;
      }
      over = true;
      held = permit;
      permit = null;
    }
    // outside the lock: a release may hand the permit to a waiter (limiter code)
    if (held != null) {
      held.release();
    }
  }
}
