package dev.sluice.rules;

import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.Locale;

/** The {@code unit} of a rules file: a named unit or a duration ({@link DurationText}). */
final class RulePeriod {

  static final String ALLOWED =
      "second, minute, hour, day, week, or a duration such as 10s, 15m," + " 500ms, 2h, 1d, PT1H";

  /** Far beyond any sensible period, and far from overflowing a long of nanoseconds. */
  private static final Duration MAX = Duration.ofDays(3650);

  private RulePeriod() {}

  /**
   * Parses {@code second | minute | hour | day | week} or a duration.
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
      default -> duration(value);
    };
    if (period.compareTo(MAX) > 0) {
      throw new IllegalArgumentException("unit must be at most 3650 days but was '" + value + "'");
    }
    if (period.toNanos() < 1_000) {
      throw new IllegalArgumentException(
          "unit must be at least 1 microsecond but was '" + value + "'");
    }
    return period;
  }

  private static Duration duration(String value) {
    try {
      return DurationText.parse(value);
    } catch (IllegalArgumentException e) {
      // a negative or absurdly long duration is not a unit either; the list says what is
      throw new IllegalArgumentException("unknown unit '" + value + "'; allowed: " + ALLOWED, e);
    }
  }
}
