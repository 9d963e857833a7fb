package dev.sluice.time;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Duration text as Sluice's properties, rules files and store URIs write it: a whole number and a
 * unit ({@code 500ms}, {@code 60s}, {@code 15m}, {@code 1h}, {@code 2d}, {@code 1w}; any case, a
 * space allowed before the unit) or ISO-8601 ({@code PT1M}, {@code P1D}, {@code PT0.5S}).
 *
 * <p>Every duration read is at most {@link #MAX}, the nanoseconds a {@code long} holds (about 292
 * years): limiters and schedulers count in nanoseconds, so a longer one would overflow where it is
 * used instead of here, where the text can still be named. Negative durations are refused.
 */
public final class DurationText {

  /** The forms accepted, for error messages and documentation. */
  public static final String FORMS =
      "a whole number with ms, s, m, h, d or w (500ms, 60s, 15m, 1h, 2d) or ISO-8601 (PT1M)";

  /** The longest duration accepted: {@code Long.MAX_VALUE} nanoseconds. */
  public static final Duration MAX = Duration.ofNanos(Long.MAX_VALUE);

  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d|w)");

  private DurationText() {}

  /**
   * The duration that {@code text} (trimmed) writes.
   *
   * @throws IllegalArgumentException saying what is wrong and, for text that is not a duration,
   *     what is allowed; without the text itself, which the caller names with where it came from
   *     (a property and its source, a rules file's line and field)
   */
  public static Duration parse(String text) {
    if (text == null || text.isBlank()) {
      throw new IllegalArgumentException("a duration is required; allowed: " + FORMS);
    }
    String value = text.trim();
    Matcher m = SHORT.matcher(value.toLowerCase(Locale.ROOT));
    Duration parsed = m.matches() ? suffixed(m.group(1), m.group(2)) : iso(value);
    if (parsed.isNegative()) {
      throw new IllegalArgumentException("must not be negative");
    }
    if (parsed.compareTo(MAX) > 0) {
      throw tooLong();
    }
    return parsed;
  }

  private static Duration suffixed(String digits, String unit) {
    try {
      long amount = Long.parseLong(digits);
      return switch (unit) {
        case "ms" -> Duration.ofMillis(amount);
        case "s" -> Duration.ofSeconds(amount);
        case "m" -> Duration.ofMinutes(amount);
        case "h" -> Duration.ofHours(amount);
        case "d" -> Duration.ofDays(amount);
        default -> Duration.ofDays(Math.multiplyExact(amount, 7));
      };
    } catch (NumberFormatException | ArithmeticException e) {
      // the digits matched, so the number is only too large for a long or for a Duration
      throw tooLong();
    }
  }

  private static Duration iso(String value) {
    String upper = value.toUpperCase(Locale.ROOT);
    if (upper.startsWith("P") || upper.startsWith("-P") || upper.startsWith("+P")) {
      try {
        return Duration.parse(upper);
      } catch (DateTimeParseException e) {
        // the JDK reports a number too large for a long (or its product) as the cause
        if (e.getCause() instanceof NumberFormatException
            || e.getCause() instanceof ArithmeticException) {
          throw tooLong();
        }
        // not ISO-8601 after all: reported below
      }
    }
    throw new IllegalArgumentException("not a duration; allowed: " + FORMS);
  }

  private static IllegalArgumentException tooLong() {
    return new IllegalArgumentException(
        "too long; at most " + MAX.toDays() + "d (the nanoseconds a long holds)");
  }
}
