package dev.sluice.rate;

/**
 * One algorithm's arithmetic over the state of a single key; {@link KeyedRateLimiter} finds the
 * state. Every time is a {@link dev.sluice.time.NanoClock} reading, compared only by difference.
 *
 * @param <S> the mutable per-key state; implementations say how they keep it consistent
 */
interface RateAlgorithm<S extends KeyState> {

  /**
   * What {@link #nanosUntilFull(KeyState, long)} answers for a state that decides exactly like a
   * new one whenever it is read (nothing counted in it), however long ago it was touched.
   */
  long ALWAYS_FULL = Long.MIN_VALUE / 4;

  /** The state of a key never seen before (full capacity) at time {@code now}. */
  S newState(long now);

  /**
   * Decides a request of {@code cost >= 1} permits, taking them from {@code state} when allowed, and
   * writes the answer into {@code into}; answers {@code into.allowed()}.
   */
  boolean decide(S state, long now, long cost, RateOutcome into);

  /** {@link #decide} as the immutable record. */
  default RateDecision tryAcquire(S state, long now, long cost) {
    RateOutcome outcome = new RateOutcome();
    decide(state, now, cost, outcome);
    return outcome.toDecision();
  }

  /** Gives back up to {@code cost} permits taken earlier; never beyond the initial state. */
  void refund(S state, long now, long cost);

  /**
   * How long {@code state}, left untouched from {@code now} on, takes to decide exactly like a new
   * key: positive while something counted in it still counts; zero or negative once it is full,
   * minus how long it has been full ({@link #ALWAYS_FULL} when that is unknown because nothing was
   * ever counted). Exact while the state was updated within {@link #maxIdleNanos()} of {@code now}.
   */
  long nanosUntilFull(S state, long now);

  /**
   * Retires {@code state} (see {@link KeyState}) if it has been full for at least {@code
   * graceNanos} by {@code now}, atomically with respect to concurrent decisions: a decision that
   * updates the state meanwhile either makes this return false or sees the state retired.
   */
  boolean retireIfFullFor(S state, long now, long graceNanos);

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
