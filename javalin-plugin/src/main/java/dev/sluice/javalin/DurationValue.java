package dev.sluice.javalin;

import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the durations of properties: {@code 500ms}, {@code 60s}, {@code 60m}, {@code 2h}, {@code 1d}, {@code PT1M}. */
final class DurationValue {

  private static final Pattern SHORT = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

  private DurationValue() {}

  /**
   * @throws IllegalArgumentException whose message is the problem only (the caller names the key)
   */
  static Duration parse(String raw) {
    if (raw == null || raw.isBlank()) {
      throw new IllegalArgumentException("a duration is required, e.g. 500ms, 60s, 60m, PT1M");
    }
    String value = raw.trim();
    Matcher m = SHORT.matcher(value.toLowerCase(Locale.ROOT));
    try {
      if (m.matches()) {
        long amount = Long.parseLong(m.group(1));
        switch (m.group(2)) {
          case "ms":
            return Duration.ofMillis(amount);
          case "s":
            return Duration.ofSeconds(amount);
          case "m":
            return Duration.ofMinutes(amount);
          case "h":
            return Duration.ofHours(amount);
          default:
            return Duration.ofDays(amount);
        }
      }
      if (value.toUpperCase(Locale.ROOT).startsWith("P")) {
        Duration parsed = Duration.parse(value.toUpperCase(Locale.ROOT));
        if (parsed.isNegative()) {
          throw new IllegalArgumentException("must not be negative");
        }
        return parsed;
      }
    } catch (NumberFormatException | ArithmeticException | DateTimeParseException e) {
      // falls through to the message below: the value is not a duration we understand
    }
    throw new IllegalArgumentException(
        "not a duration; use e.g. 500ms, 60s, 60m, 2h, 1d or ISO-8601 PT1M");
  }
}
