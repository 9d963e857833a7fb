package dev.sluice.rate;

import java.time.Duration;

/**
 * A limit of {@code limit} permits per {@code period}, with an algorithm capacity of {@code burst}.
 *
 * <p>For the token bucket, GCRA and the leaky buckets the burst is the capacity: how many permits
 * may be taken at once after an idle spell (nginx's {@code burst=N} is a capacity of {@code N + 1}:
 * nginx counts only the excess above the request being served). Window algorithms ignore it.
 *
 * @param limit permits per period, at least 1
 * @param period the period, positive and at least one microsecond
 * @param burst the capacity, at least 1
 */
public record RateLimit(long limit, Duration period, long burst) {

  public RateLimit {
    if (limit < 1) {
      throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
    }
    if (period == null) {
      throw new IllegalArgumentException("period must not be null");
    }
    if (period.isNegative() || period.toNanos() < 1_000) {
      throw new IllegalArgumentException("period must be at least 1 microsecond but was " + period);
    }
    if (burst < 1) {
      throw new IllegalArgumentException("burst must be >= 1 but was " + burst);
    }
  }

  /** {@code limit} per {@code period}, burst equal to the limit. */
  public static RateLimit of(long limit, Duration period) {
    return new RateLimit(limit, period, limit);
  }

  /** The same limit and period with another burst. */
  public RateLimit withBurst(long newBurst) {
    return new RateLimit(limit, period, newBurst);
  }

  /** Nanoseconds between two permits at the steady rate (at least 1). */
  public long nanosPerPermit() {
    return Math.max(1, period.toNanos() / limit);
  }
}
