package dev.sluice.answer;

/**
 * The figure every door tells a refused caller to wait before it retries: HTTP's {@code
 * Retry-After} (whole seconds) and gRPC's {@code grpc-retry-pushback-ms} (the same figure in
 * milliseconds), so a client sees one number whichever door it came through.
 */
public final class RetryAfter {

  /**
   * The wait told on a shutdown refusal when the limiter has no estimate yet (nothing served): a
   * client still must not retry at once.
   */
  public static final long SHUTDOWN_SECONDS = 5;

  private RetryAfter() {}

  /** Whole seconds for Retry-After: rounded up and at least 1, so a client never retries at once. */
  public static long seconds(long nanos) {
    return ceilSeconds(nanos, 1);
  }

  /** {@code nanos} in whole seconds, rounded up, at least {@code min}. */
  public static long ceilSeconds(long nanos, long min) {
    long seconds = nanos <= 0 ? 0 : (nanos - 1) / 1_000_000_000L + 1;
    return Math.max(min, seconds);
  }
}
