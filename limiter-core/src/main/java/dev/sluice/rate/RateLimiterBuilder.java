package dev.sluice.rate;

import dev.sluice.time.NanoClock;
import java.time.Duration;

/** Builds a {@link KeyedRateLimiter}, choosing the arithmetic for the algorithm. */
final class RateLimiterBuilder implements RateLimiter.Builder {

  private final Algorithm algorithm;
  private final RateLimit limit;
  private NanoClock clock = NanoClock.system();
  private long maxKeys = RateLimiter.DEFAULT_MAX_KEYS;
  private Duration expireAfterIdle;
  private boolean unkeyed;
  private Long windowOrigin;

  RateLimiterBuilder(Algorithm algorithm, RateLimit limit) {
    if (algorithm == null) {
      throw new IllegalArgumentException(
          "algorithm must not be null; allowed: " + Algorithm.allowedIds());
    }
    if (limit == null) {
      throw new IllegalArgumentException("limit must not be null");
    }
    this.algorithm = algorithm;
    this.limit = limit;
  }

  @Override
  public RateLimiter.Builder clock(NanoClock clock) {
    if (clock == null) {
      throw new IllegalArgumentException("clock must not be null");
    }
    this.clock = clock;
    return this;
  }

  @Override
  public RateLimiter.Builder maxKeys(long maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be >= 1 but was " + maxKeys);
    }
    this.maxKeys = maxKeys;
    return this;
  }

  @Override
  public RateLimiter.Builder expireAfterIdle(Duration idle) {
    if (idle == null || idle.isNegative() || idle.isZero()) {
      throw new IllegalArgumentException("expireAfterIdle must be positive but was " + idle);
    }
    this.expireAfterIdle = idle;
    return this;
  }

  @Override
  public RateLimiter.Builder windowOrigin(long origin) {
    this.windowOrigin = origin;
    return this;
  }

  @Override
  public RateLimiter.Builder unkeyed() {
    this.unkeyed = true;
    return this;
  }

  @Override
  public RateLimiter build() {
    RateAlgorithm<?> arithmetic =
        arithmetic(windowOrigin == null ? clock.nanoTime() : windowOrigin);
    return unkeyed ? unkeyed(arithmetic) : keyed(arithmetic);
  }

  private <S extends KeyState> RateLimiter unkeyed(RateAlgorithm<S> arithmetic) {
    return new UnkeyedRateLimiter<>(algorithm, limit, arithmetic, clock);
  }

  private RateAlgorithm<?> arithmetic(long origin) {
    return switch (algorithm) {
      case TOKEN_BUCKET -> new TokenBucket(limit);
      case LEAKY_BUCKET -> new LeakyBucket(limit, false);
      case LEAKY_BUCKET_SHAPER -> new LeakyBucket(limit, true);
      case FIXED_WINDOW -> new FixedWindow(limit, origin);
      case SLIDING_LOG -> new SlidingLog(limit);
      case SLIDING_WINDOW -> new SlidingWindowCounter(limit, origin);
      case GCRA -> new Gcra(limit);
      default -> throw new IllegalArgumentException("unknown algorithm " + algorithm);
    };
  }

  private <S extends KeyState> RateLimiter keyed(RateAlgorithm<S> arithmetic) {
    long full = arithmetic.nanosUntilFull();
    long idle = full;
    if (expireAfterIdle != null) {
      idle = expireAfterIdle.toNanos();
      if (idle < full) {
        throw new IllegalArgumentException(
            "expireAfterIdle must be at least " + Duration.ofNanos(full) + " (the time a "
                + algorithm.id() + " key takes to refill) but was " + expireAfterIdle);
      }
    }
    long maxIdle = KeyedStates.maxIdleNanos(arithmetic);
    if (idle > maxIdle) {
      throw new IllegalArgumentException(
          "expireAfterIdle must be at most " + Duration.ofNanos(maxIdle) + " for " + limit
              + " with " + algorithm.id() + " but was " + Duration.ofNanos(idle));
    }
    return new KeyedRateLimiter<>(algorithm, limit, arithmetic, clock, maxKeys, idle);
  }
}
