package dev.sluice.client;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Optional;

/**
 * Reads an HTTP {@code Retry-After} value (RFC 9110 section 10.2.3): either delay-seconds or an
 * HTTP-date. A value that is neither is ignored, never thrown: a server's typo must not fail the
 * caller's request.
 */
public final class RetryAfter {

  /** A delay longer than this is taken as this: a broken date must not park a destination for years. */
  public static final Duration MAX = Duration.ofHours(1);

  private RetryAfter() {}

  /**
   * The delay the value asks for, measured from {@code wall}'s now for an HTTP-date; a date in the
   * past is a zero delay. Empty for a missing or malformed value.
   */
  public static Optional<Duration> parse(String value, Clock wall) {
    if (value == null) {
      return Optional.empty();
    }
    String v = value.trim();
    if (v.isEmpty()) {
      return Optional.empty();
    }
    if (isDigits(v)) {
      // more than 18 digits overflows a long: such a value is as good as "very long"
      long seconds = v.length() > 18 ? Long.MAX_VALUE : Long.parseLong(v);
      return Optional.of(Duration.ofSeconds(Math.min(seconds, MAX.toSeconds())));
    }
    try {
      Instant at = ZonedDateTime.parse(v, DateTimeFormatter.RFC_1123_DATE_TIME).toInstant();
      Duration delay = Duration.between(wall.instant(), at);
      return Optional.of(delay.isNegative() ? Duration.ZERO : cap(delay));
    } catch (DateTimeParseException e) {
      return Optional.empty();
    }
  }

  static boolean isDigits(String v) {
    for (int i = 0; i < v.length(); i++) {
      char c = v.charAt(i);
      if (c < '0' || c > '9') {
        return false;
      }
    }
    return !v.isEmpty();
  }

  private static Duration cap(Duration d) {
    return d.compareTo(MAX) > 0 ? MAX : d;
  }
}
