package dev.sluice.client;

import dev.sluice.rate.RateLimit;
import java.time.Duration;
import java.util.Optional;

/**
 * What a response's rate-limit headers ask of the caller.
 *
 * @param pace the rate the server advertises for this caller (the most restrictive policy), or
 *     empty when it advertises none the client can read
 * @param pause how long to send nothing to this destination (quota used up, or {@code Retry-After}
 *     on a throttling answer); zero when the headers ask for no pause
 */
public record RateLimitAdvice(Optional<RateLimit> pace, Duration pause) {

  /** No advice: the response carried no readable rate-limit header. */
  public static final RateLimitAdvice NONE = new RateLimitAdvice(Optional.empty(), Duration.ZERO);

  public RateLimitAdvice {
    if (pace == null || pause == null || pause.isNegative()) {
      throw new IllegalArgumentException(
          "pace must not be null and pause must be >= 0: " + pace + ", " + pause);
    }
  }

  /** Permits per second of a pace, for comparing paces of different periods. */
  static double perSecond(RateLimit pace) {
    return pace.limit() * 1e9 / pace.period().toNanos();
  }
}
