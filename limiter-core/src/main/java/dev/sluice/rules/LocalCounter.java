package dev.sluice.rules;

import dev.sluice.rate.RateDecision;
import dev.sluice.time.NanoClock;

/**
 * One rule's counts on this node: an algorithm with per-key state, plus the give-back the engine
 * needs so that a request rejected by another rule keeps none of the permits it took here.
 */
interface LocalCounter {

  RateDecision tryAcquire(String key, long cost);

  /** Gives back {@code cost} permits that an allowed {@link #tryAcquire} of {@code key} took. */
  void refund(String key, long cost);

  /** Makes the counter of one rule. */
  @FunctionalInterface
  interface Factory {
    LocalCounter create(Rule rule, NanoClock clock, long maxKeys);
  }
}
