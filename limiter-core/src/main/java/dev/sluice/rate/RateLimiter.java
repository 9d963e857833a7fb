package dev.sluice.rate;

import dev.sluice.time.NanoClock;
import java.time.Duration;

/**
 * One algorithm and one limit, applied separately to every key (an IP, an account, a device...).
 *
 * <p>Per-key state lives in a bounded map: never more than {@link Builder#maxKeys(long)} keys, and
 * a key whose state is back to the initial state ("full") may be forgotten, since it would decide
 * exactly like a new key; a state that is not full is forgotten only when the bound forces it, and
 * then the one closest to full goes first (a flood of one-off keys does not reset a drained key).
 * Time comes only from the injected {@link NanoClock}.
 *
 * <pre>{@code
 * RateLimiter perAccount = RateLimiter.builder(Algorithm.TOKEN_BUCKET, RateLimit.of(2, Duration.ofSeconds(1)))
 *     .maxKeys(50_000)
 *     .build();
 * RateDecision decision = perAccount.tryAcquire("account-42", 1);
 * if (!decision.allowed()) {
 *   // answer 429 with Retry-After = decision.retryAfterNanos()
 * }
 * }</pre>
 *
 * <p>On a hot path, {@link #tryAcquire(String, long, RateOutcome)} writes the same answer into a
 * {@link RateOutcome} the caller reuses, so the decision allocates nothing.
 *
 * <h2>Several limits on one request</h2>
 *
 * A request that several rules match must pass every rule, and a request rejected by one rule must
 * consume no quota from the others. The design is <em>acquire, then refund</em>: call {@link
 * #tryAcquire} on each limiter in turn; if one rejects, call {@link #refund} on every limiter that
 * allowed. Each {@code tryAcquire} is atomic on its own, so no interleaving of concurrent requests
 * can ever admit more than a limit allows; between the acquire and the refund the permits are
 * merely held, so a concurrent request may at worst be rejected a little early (never admitted
 * wrongly). A check-then-commit pair was rejected because a concurrent request can take the quota
 * between the check and the commit, so the commit has to be able to fail and undo anyway.
 *
 * <p>Implementations are thread-safe.
 */
public interface RateLimiter {

  /** Default bound on tracked keys: about 10 MB of state at about 100 bytes per key plus the key. */
  long DEFAULT_MAX_KEYS = 100_000;

  /** Keys longer than this are replaced by a fixed-length digest before they are stored. */
  int MAX_KEY_LENGTH = 256;

  /** A limiter with the default bound on keys and the default idle expiry. */
  static RateLimiter of(Algorithm algorithm, RateLimit limit, NanoClock clock) {
    return builder(algorithm, limit).clock(clock).build();
  }

  /** Starts a limiter; the algorithm and the limit are validated when {@link Builder#build()} runs. */
  static Builder builder(Algorithm algorithm, RateLimit limit) {
    return new RateLimiterBuilder(algorithm, limit);
  }

  /**
   * Decides one request of {@code cost} permits for {@code key}, taking the permits when allowed.
   * A rejected request takes nothing. A cost larger than the algorithm's capacity can never be
   * allowed: it is rejected with {@code retryAfterNanos == Long.MAX_VALUE}.
   *
   * @param key the actor, non-null and non-empty; keys longer than {@link #MAX_KEY_LENGTH} chars
   *     are stored as a SHA-256 digest
   * @param cost permits this request takes, at least 1
   * @throws IllegalArgumentException naming the value, for a null or empty key or a cost below 1
   */
  RateDecision tryAcquire(String key, long cost);

  /** {@code tryAcquire(key, 1)}. */
  default RateDecision tryAcquire(String key) {
    return tryAcquire(key, 1);
  }

  /**
   * Decides as {@link #tryAcquire(String, long)} does, but writes the answer into {@code into} (a
   * holder the caller reuses) instead of a new {@link RateDecision}: a decision on a known key
   * allocates nothing. The limiters this library builds decide in place; the default, for other
   * implementations, copies the record.
   *
   * @return {@code into.allowed()}
   * @throws IllegalArgumentException as {@link #tryAcquire(String, long)} does; {@code into} is then
   *     left as it was
   */
  default boolean tryAcquire(String key, long cost, RateOutcome into) {
    return into.set(tryAcquire(key, cost)).allowed();
  }

  /**
   * Gives back {@code cost} permits an earlier allowed {@link #tryAcquire} took for {@code key},
   * because another rule rejected the same request. Never gives more than the initial capacity and
   * never touches a key that has no state (then nothing is held). Exact for the token bucket,
   * GCRA and the leaky buckets (permits are interchangeable); for the windows it returns the
   * permits to the window they were taken from, or drops the refund once that window no longer
   * counts; the sliding log removes its newest entries, which may be a concurrent request's entry a
   * few microseconds younger than the refunded one.
   *
   * @throws IllegalArgumentException as {@link #tryAcquire} does
   */
  void refund(String key, long cost);

  /** The limit every key is held to. */
  RateLimit limit();

  /** How the limit is enforced. */
  Algorithm algorithm();

  /**
   * How many keys have state now (for snapshots and metrics), after dropping the states that have
   * expired; never more than {@link Builder#maxKeys(long)}. Takes the map's maintenance lock and
   * walks the map: for a scrape, not per request.
   */
  long trackedKeys();

  /** Configures a {@link RateLimiter}; setters validate at once and name the setting and value. */
  interface Builder {

    /** Where time comes from; default {@link NanoClock#system()}. */
    Builder clock(NanoClock clock);

    /** At most this many keys keep state (>= 1); default {@link #DEFAULT_MAX_KEYS}. */
    Builder maxKeys(long maxKeys);

    /**
     * How long an untouched key keeps its state at least (unless the key bound forces it out): a
     * state is kept until it has been full again for {@code idle} minus the refill time. Default
     * and minimum: the time an untouched key takes to return to full capacity, so forgetting it
     * changes no decision. A state with nothing counted in it decides like a new key whenever it is
     * read and may be forgotten sooner; an expired state is dropped by a later sweep (at most this
     * long, or a second, after it expired; at once by {@link RateLimiter#trackedKeys()}). At most a
     * quarter of the span the algorithm's arithmetic is exact over (checked by {@link #build()}).
     */
    Builder expireAfterIdle(Duration idle);

    /**
     * Where the windows of {@link Algorithm#FIXED_WINDOW} and {@link Algorithm#SLIDING_WINDOW}
     * start: at this clock reading plus whole periods. Default: the limiter's creation. With a
     * clock that reads nanoseconds since the Unix epoch, {@code 0} aligns the windows to the epoch
     * (a window of one minute starts at every full minute, as envoy/ratelimit counts); the other
     * algorithms have no windows and ignore it.
     */
    Builder windowOrigin(long origin);

    /**
     * Every key shares one state: the limit of a rule whose actor is {@code all}, where every
     * request counts against the same quota. No map is kept, so a decision costs no lookup and no
     * idle expiry; {@link #maxKeys} and {@link
     * #expireAfterIdle} do not apply, and {@link RateLimiter#trackedKeys()} is 1. Keys are still
     * checked (null or empty is refused), but which key is passed changes nothing.
     */
    Builder unkeyed();

    /**
     * Builds the limiter.
     *
     * @throws IllegalArgumentException when the limit cannot be represented by the algorithm (e.g. a
     *     fixed window of more than 2^32-1 permits) or the idle expiry is shorter than the refill
     */
    RateLimiter build();
  }
}
