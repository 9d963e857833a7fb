package dev.sluice.client;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * What becomes of a throttled record: tried again (after the destination's pause, or after its own
 * exponential backoff with full jitter) while attempts and the {@link RetryBudget} allow, or
 * returned to the caller as it is.
 */
final class Retries {

  /** {@link #afterThrottled}: give the answer back, no retry. */
  static final long GIVE_UP = -1;

  private final int maxAttempts;
  private final RetryBudget budget;
  private final long baseNanos;
  private final long maxNanos;
  private final RandomGenerator random;
  private final ClientListener listener;

  Retries(PacedClientConfig config, RandomGenerator random, ClientListener listener) {
    this.maxAttempts = config.maxAttempts();
    this.budget = new RetryBudget(config.retryBudgetRatio(), config.minRetries());
    this.baseNanos = config.backoffBase().toNanos();
    this.maxNanos = config.backoffMax().toNanos();
    this.random = random;
    this.listener = listener;
  }

  /** A record went out for the first time: it pays its share into the budget. */
  void firstAttempt() {
    budget.onRequest();
  }

  /**
   * Decides a record answered 429 or 503 after {@code attempts} tries.
   *
   * @param pause the pause the answer asked for (zero: none)
   * @return {@link #GIVE_UP}; 0 to retry as soon as the destination's pause ends; or a backoff
   */
  long afterThrottled(int attempts, Duration pause) {
    if (attempts >= maxAttempts) {
      return GIVE_UP;
    }
    if (!budget.tryRetry()) {
      listener.onBudgetExhausted();
      return GIVE_UP;
    }
    listener.onRetry();
    return pause.isZero() ? jitteredBackoff(attempts) : 0;
  }

  long available() {
    return budget.available();
  }

  /** Full jitter: uniform in (0, min(max, base x 2^(attempt-1))]. */
  private long jitteredBackoff(int attempt) {
    long ceiling = baseNanos << Math.min(attempt - 1, 40);
    if (ceiling <= 0 || ceiling > maxNanos) {
      ceiling = maxNanos; // past max, or shifted beyond a long
    }
    return 1 + (long) (random.nextDouble() * ceiling);
  }
}
