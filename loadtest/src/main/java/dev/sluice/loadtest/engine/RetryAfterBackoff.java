package dev.sluice.loadtest.engine;

import dev.sluice.client.RetryAfter;
import io.github.resilience4j.core.IntervalBiFunction;
import io.github.resilience4j.core.functions.Either;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;

/**
 * How long a well-behaved client waits before its next try, as a Resilience4j
 * {@link IntervalBiFunction} (so the same policy plugs into a {@code RetryConfig}).
 *
 * <p>When the server sent {@code Retry-After} (seconds, or an HTTP date; read by limiter-client's
 * {@link RetryAfter}, as Sluice's own clients read it) the client waits at least that long;
 * otherwise it backs off exponentially from {@code initial}. Either way a random extra of
 * up to {@code jitter} times the wait is added, so clients told "retry in 1 s" at the same moment do
 * not all come back in the same millisecond (the thundering herd the rate limiting pattern warns of).
 */
public final class RetryAfterBackoff implements IntervalBiFunction<Reply> {

  private final Duration initial;
  private final double multiplier;
  private final Duration max;
  private final double jitter;
  private final Random random;
  private final Clock wallClock;

  /**
   * @param initial wait after the first failed try when the server gave no Retry-After
   * @param multiplier growth per further try (>= 1)
   * @param max cap of the backoff without Retry-After (a server's Retry-After is not cut to it, only
   *     to {@link RetryAfter#MAX})
   * @param jitter extra random wait as a fraction of the wait, in [0, 1]
   * @param random seeded for reproducible runs
   * @param wallClock only to read HTTP-date Retry-After values
   */
  public RetryAfterBackoff(
      Duration initial,
      double multiplier,
      Duration max,
      double jitter,
      Random random,
      Clock wallClock) {
    if (initial.isNegative() || initial.isZero()) {
      throw new IllegalArgumentException("initial backoff must be > 0 but was " + initial);
    }
    if (!(multiplier >= 1)) {
      throw new IllegalArgumentException("backoff multiplier must be >= 1 but was " + multiplier);
    }
    if (!(jitter >= 0 && jitter <= 1)) {
      throw new IllegalArgumentException("jitter must be in [0, 1] but was " + jitter);
    }
    this.initial = initial;
    this.multiplier = multiplier;
    this.max = max;
    this.jitter = jitter;
    this.random = random;
    this.wallClock = wallClock;
  }

  /** 200 ms doubling up to 5 s, plus up to 50 % jitter. */
  public static RetryAfterBackoff defaults(long seed) {
    return new RetryAfterBackoff(
        Duration.ofMillis(200),
        2.0,
        Duration.ofSeconds(5),
        0.5,
        new Random(seed),
        Clock.systemUTC());
  }

  /**
   * @param attempts how many tries have been made so far (1 after the first)
   * @param result the failure or the reply of the last try
   * @return milliseconds to wait before the next try
   */
  @Override
  public Long apply(Integer attempts, Either<Throwable, Reply> result) {
    Optional<Long> serverSaid = result.isRight()
        ? result
            .get()
            .retryAfter()
            .flatMap(value -> RetryAfter.parse(value, wallClock))
            .map(Duration::toMillis)
        : Optional.empty();
    long base = serverSaid.orElseGet(() -> (long) Math.min(
        (double) max.toMillis(),
        initial.toMillis() * Math.pow(multiplier, Math.max(0, attempts - 1))));
    return base + (long) (random.nextDouble() * jitter * base);
  }
}
