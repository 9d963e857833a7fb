package dev.sluice.rate;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.sluice.time.NanoClock;

/**
 * A {@link RateLimiter} keeping one algorithm's state per key in a bounded Caffeine cache.
 *
 * <p>The cache reads the same {@link NanoClock} as the decisions (as its Ticker), so idle expiry
 * runs in virtual time in tests. Its maintenance (eviction, expiry) runs on the calling thread:
 * amortized and bounded, and the bound on keys holds even when the common pool is starved by
 * other work.
 *
 * @param <S> the algorithm's per-key state
 */
final class KeyedRateLimiter<S> implements RateLimiter {

  private final Algorithm algorithm;
  private final RateLimit limit;
  private final RateAlgorithm<S> arithmetic;
  private final NanoClock clock;
  private final Cache<String, S> states;

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
    this.states =
        Caffeine.newBuilder()
            .maximumSize(maxKeys)
            .expireAfterAccess(java.time.Duration.ofNanos(expireAfterIdleNanos))
            .ticker(clock::nanoTime)
            .executor(Runnable::run)
            .build();
  }

  @Override
  public RateDecision tryAcquire(String key, long cost) {
    String stored = BoundedKey.of(key);
    checkCost(key, cost);
    // read the clock before the cache does: the access time Caffeine records is then never earlier
    // than the time the state was updated at, so an entry expires only when its state is full again
    long now = clock.nanoTime();
    S state = states.getIfPresent(stored);
    if (state == null) {
      state = states.get(stored, k -> arithmetic.newState(now));
    }
    return arithmetic.tryAcquire(state, now, cost);
  }

  @Override
  public void refund(String key, long cost) {
    String stored = BoundedKey.of(key);
    checkCost(key, cost);
    long now = clock.nanoTime();
    S state = states.getIfPresent(stored);
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
    states.cleanUp();
    return states.estimatedSize();
  }

  @Override
  public String toString() {
    return "RateLimiter[" + algorithm.id() + ", " + limit + "]";
  }
}
