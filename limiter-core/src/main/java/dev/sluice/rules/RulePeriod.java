package dev.sluice.rules;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/** The {@code unit} of a rules file: a named unit or a duration. */
final class RulePeriod {

  static final String ALLOWED = "second, minute, hour, day, week, or a duration such as 10s, 15m,"
      + " 500ms, 2h, 1d, PT1H";

  /** Far beyond any sensible period, and far from overflowing a long of nanoseconds. */
  private static final Duration MAX = Duration.ofDays(3650);

  private RulePeriod() {}

  /**
   * Parses {@code second | minute | hour | day | week}, a number with a suffix ({@code ms, s, m, h,
   * d, w}) or an ISO-8601 duration.
   *
   * @throws IllegalArgumentException naming the value and listing the allowed forms
   */
  static Duration parse(String value) {
    String text = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
    Duration period = switch (text) {
      case "second" -> Duration.ofSeconds(1);
      case "minute" -> Duration.ofMinutes(1);
      case "hour" -> Duration.ofHours(1);
      case "day" -> Duration.ofDays(1);
      case "week" -> Duration.ofDays(7);
      default -> text.startsWith("p") ? iso(text) : suffixed(text);
    };
    if (period == null) {
      throw new IllegalArgumentException("unknown unit '" + value + "'; allowed: " + ALLOWED);
    }
    if (period.compareTo(MAX) > 0) {
      throw new IllegalArgumentException("unit must be at most 3650 days but was '" + value + "'");
    }
    if (period.isNegative() || period.toNanos() < 1_000) {
      throw new IllegalArgumentException(
          "unit must be at least 1 microsecond but was '" + value + "'");
    }
    return period;
  }

  private static Duration iso(String text) {
    try {
      return Duration.parse(text.toUpperCase(Locale.ROOT));
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Duration suffixed(String text) {
    int digits = 0;
    while (digits < text.length() && Character.isDigit(text.charAt(digits))) {
      digits++;
    }
    if (digits == 0 || digits > 12) {
      return null;
    }
    long amount = Long.parseLong(text.substring(0, digits));
    return switch (text.substring(digits)) {
      case "ms" -> Duration.ofMillis(amount);
      case "s" -> Duration.ofSeconds(amount);
      case "m" -> Duration.ofMinutes(amount);
      case "h" -> Duration.ofHours(amount);
      case "d" -> Duration.ofDays(amount);
      case "w" -> Duration.ofDays(7 * amount);
      default -> null;
    };
  }
}
