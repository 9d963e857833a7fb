package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;

/**
 * Calls the user's listener and swallows what it throws: a failing metrics callback must never
 * abort a release half way and leak a permit.
 */
final class GuardedListener {

  private final String name;
  private final ConcurrencyListener delegate;

  GuardedListener(String name, ConcurrencyListener delegate) {
    this.name = name;
    this.delegate = delegate;
  }

  void admitted(long queuedNanos) {
    try {
      delegate.onAdmitted(name, queuedNanos);
    } catch (RuntimeException ignored) {
      // see class comment
    }
  }

  void queued() {
    try {
      delegate.onQueued(name);
    } catch (RuntimeException ignored) {
      // see class comment
    }
  }

  void rejected(Outcome outcome, RejectionReason reason, long waitedNanos) {
    try {
      delegate.onRejected(name, outcome, reason, waitedNanos);
    } catch (RuntimeException ignored) {
      // see class comment
    }
  }

  void released(long serviceNanos) {
    try {
      delegate.onReleased(name, serviceNanos);
    } catch (RuntimeException ignored) {
      // see class comment
    }
  }
}
