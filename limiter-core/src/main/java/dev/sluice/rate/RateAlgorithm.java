package dev.sluice.rate;

/**
 * One algorithm's arithmetic over the state of a single key; {@link KeyedRateLimiter} finds the
 * state. Every time is a {@link dev.sluice.time.NanoClock} reading, compared only by difference.
 *
 * @param <S> the mutable per-key state; implementations say how they keep it consistent
 */
interface RateAlgorithm<S> {

  /** The state of a key never seen before (full capacity) at time {@code now}. */
  S newState(long now);

  /** Decides a request of {@code cost >= 1} permits, taking them from {@code state} when allowed. */
  RateDecision tryAcquire(S state, long now, long cost);

  /** Gives back up to {@code cost} permits taken earlier; never beyond the initial state. */
  void refund(S state, long now, long cost);

  /**
   * How long an untouched key takes to decide exactly like a new key; the least idle expiry that
   * forgets nothing.
   */
  long nanosUntilFull();

  /**
   * The longest idle time the state's arithmetic stays exact over (time differences are computed
   * modulo 2^64, possibly scaled); the idle expiry must not exceed it.
   */
  default long maxIdleNanos() {
    return Long.MAX_VALUE;
  }
}
