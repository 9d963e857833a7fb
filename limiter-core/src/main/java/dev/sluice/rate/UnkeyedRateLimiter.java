package dev.sluice.rate;

import dev.sluice.time.NanoClock;

/**
 * A {@link RateLimiter} whose every key shares one state: the limit of a rule whose actor is
 * {@code all}. No map, so no lookup, no per-key memory and no idle expiry, and one clock read per
 * decision (a keyed limiter also feeds the clock to its map for idle expiry).
 *
 * @param <S> the algorithm's state
 */
final class UnkeyedRateLimiter<S extends KeyState> implements RateLimiter {

  private final Algorithm algorithm;
  private final RateLimit limit;
  private final RateAlgorithm<S> arithmetic;
  private final NanoClock clock;
  private final S state;

  UnkeyedRateLimiter(
      Algorithm algorithm, RateLimit limit, RateAlgorithm<S> arithmetic, NanoClock clock) {
    this.algorithm = algorithm;
    this.limit = limit;
    this.arithmetic = arithmetic;
    this.clock = clock;
    this.state = arithmetic.newState(clock.nanoTime());
  }

  @Override
  public RateDecision tryAcquire(String key, long cost) {
    RateOutcome outcome = new RateOutcome();
    tryAcquire(key, cost, outcome);
    return outcome.toDecision();
  }

  @Override
  public boolean tryAcquire(String key, long cost, RateOutcome into) {
    // the key selects nothing here, but bad input is refused exactly as by a keyed limiter
    BoundedKey.check(key);
    KeyedRateLimiter.checkCost(key, cost);
    return arithmetic.decide(state, clock.nanoTime(), cost, into);
  }

  @Override
  public void refund(String key, long cost) {
    BoundedKey.check(key);
    KeyedRateLimiter.checkCost(key, cost);
    arithmetic.refund(state, clock.nanoTime(), cost);
  }

  @Override
  public RateLimit limit() {
    return limit;
  }

  @Override
  public Algorithm algorithm() {
    return algorithm;
  }

  /** Always 1: the one shared state. */
  @Override
  public long trackedKeys() {
    return 1;
  }

  @Override
  public String toString() {
    return "RateLimiter[" + algorithm.id() + ", " + limit + ", unkeyed]";
  }
}
