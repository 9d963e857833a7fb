package dev.sluice.rate;

import dev.sluice.time.NanoClock;

/**
 * A {@link RateLimiter} keeping one algorithm's state per key in {@link KeyedStates}: bounded, with
 * lazy idle expiry judged by the algorithm in the time of the injected {@link NanoClock} (so it runs
 * in virtual time in tests). One clock read per decision; the sweeps and evictions run on the
 * calling thread, amortized, so the bound on keys holds without any background thread.
 *
 * @param <S> the algorithm's per-key state
 */
final class KeyedRateLimiter<S extends KeyState> implements RateLimiter {

  private final Algorithm algorithm;
  private final RateLimit limit;
  private final RateAlgorithm<S> arithmetic;
  private final NanoClock clock;
  private final KeyedStates<S> states;

  KeyedRateLimiter(
      Algorithm algorithm,
      RateLimit limit,
      RateAlgorithm<S> arithmetic,
      NanoClock clock,
      long maxKeys,
      long expireAfterIdleNanos) {
    this.algorithm = algorithm;
    this.limit = limit;
    this.arithmetic = arithmetic;
    this.clock = clock;
    this.states = new KeyedStates<>(arithmetic, maxKeys, expireAfterIdleNanos, clock.nanoTime());
  }

  @Override
  public RateDecision tryAcquire(String key, long cost) {
    RateOutcome outcome = new RateOutcome();
    tryAcquire(key, cost, outcome);
    return outcome.toDecision();
  }

  @Override
  public boolean tryAcquire(String key, long cost, RateOutcome into) {
    String stored = BoundedKey.of(key);
    checkCost(key, cost);
    long now = clock.nanoTime();
    states.maintain(now);
    S state = states.getOrCreate(stored, now);
    boolean allowed = arithmetic.decide(state, now, cost, into);
    // the retry is out of line: this method stays small enough to inline into the caller
    return state.live() ? allowed : decideAgain(stored, now, cost, state, into);
  }

  /**
   * A sweep retired {@code retired} while a decision used it: whatever the decision took there is
   * gone with it, so decide again on the key's current state.
   */
  private boolean decideAgain(String stored, long now, long cost, S retired, RateOutcome into) {
    S state = retired;
    while (true) {
      states.forget(stored, state);
      state = states.getOrCreate(stored, now);
      boolean allowed = arithmetic.decide(state, now, cost, into);
      if (state.live()) {
        return allowed;
      }
    }
  }

  @Override
  public void refund(String key, long cost) {
    String stored = BoundedKey.of(key);
    checkCost(key, cost);
    long now = clock.nanoTime();
    states.maintain(now);
    S state = states.get(stored);
    // a retired state needs no refund: it was full (nothing held) or evicted (everything forgotten)
    if (state != null) {
      arithmetic.refund(state, now, cost);
    }
  }

  static void checkCost(String key, long cost) {
    if (cost < 1) {
      throw new IllegalArgumentException(
          "cost must be >= 1 but was " + cost + " (key " + BoundedKey.quoted(key) + ")");
    }
  }

  @Override
  public RateLimit limit() {
    return limit;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  @Override
  public long trackedKeys() {
    return states.size(clock.nanoTime());
  }

  @Override
  public String toString() {
    return "RateLimiter[" + algorithm.id() + ", " + limit + "]";
  }
}
