package dev.sluice.config;

import dev.sluice.time.DurationText;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * Turns a property's text into its value and checks a value given in code, with the same rule for
 * both: {@code max-concurrency=0} in a file and {@code maxConcurrency(0)} in code fail with the same
 * problem. Both throw {@link IllegalArgumentException} whose message is the problem only ("must be
 * >= 1"); {@link Key} adds the key, the value and where it came from.
 */
abstract class ValueParser<T> {

  /** The value of {@code raw} (trimmed, never null), checked. */
  abstract T parse(String raw);

  /** Checks a value given in code; returns it. */
  T check(T value) {
    return value;
  }

  /** How the README and error messages describe the allowed values. */
  abstract String allowed();

  static ValueParser<Integer> integer(int min, int max) {
    return new ValueParser<>() {
      @Override
      Integer parse(String raw) {
        try {
          return check(Integer.parseInt(raw));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a whole number; allowed: " + allowed());
        }
      }

      @Override
      Integer check(Integer n) {
        if (n < min || n > max) {
          throw new IllegalArgumentException("must be " + allowed());
        }
        return n;
      }

      @Override
      String allowed() {
        return max == Integer.MAX_VALUE ? ">= " + min : min + ".." + max;
      }
    };
  }

  static ValueParser<Integer> atLeast(int min) {
    return integer(min, Integer.MAX_VALUE);
  }

  static ValueParser<Boolean> bool() {
    return new ValueParser<>() {
      @Override
      Boolean parse(String raw) {
        return switch (raw.toLowerCase(Locale.ROOT)) {
          case "true", "yes", "on" -> true;
          case "false", "no", "off" -> false;
          default -> throw new IllegalArgumentException("must be true or false");
        };
      }

      @Override
      String allowed() {
        return "true, false";
      }
    };
  }

  /** {@link DurationText}: {@code 500ms}, {@code 60s}, {@code 60m}, {@code 2h}, {@code 1d}, {@code PT1M}. */
  static ValueParser<Duration> duration(boolean zeroAllowed) {
    return new ValueParser<>() {
      @Override
      Duration parse(String raw) {
        return check(DurationText.parse(raw));
      }

      @Override
      Duration check(Duration d) {
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
          throw new IllegalArgumentException(zeroAllowed ? "must not be negative" : "must be > 0");
        }
        return d;
      }

      @Override
      String allowed() {
        return "a duration" + (zeroAllowed ? "" : " > 0") + ", e.g. 500ms, 60s, 2h, PT1M";
      }
    };
  }

  /**
   * A duration of at least {@code min}, e.g. {@code 3s}; a shorter one fails with {@code why}.
   *
   * @param why the reason for the minimum, said in the error
   */
  static ValueParser<Duration> durationAtLeast(Duration min, String why) {
    ValueParser<Duration> positive = duration(false);
    String minText = min.toMillis() % 1000 == 0 ? min.toSeconds() + "s" : min.toMillis() + "ms";
    return new ValueParser<>() {
      @Override
      Duration parse(String raw) {
        return check(positive.parse(raw));
      }

      @Override
      Duration check(Duration d) {
        positive.check(d);
        if (d.compareTo(min) < 0) {
          throw new IllegalArgumentException("must be at least " + minText + ": " + why);
        }
        return d;
      }

      @Override
      String allowed() {
        return "a duration >= " + minText + ", e.g. 3s, 10s, PT5S";
      }
    };
  }

  /**
   * A size in bytes: a whole number, optionally followed by {@code B}, {@code KB}, {@code MB} or
   * {@code GB} (case-insensitive; multiples of 1024, as Spring's {@code DataSize}): {@code 0},
   * {@code 65536}, {@code 512KB}, {@code 8MB}.
   */
  static ValueParser<Long> size() {
    return new ValueParser<>() {
      @Override
      Long parse(String raw) {
        String text = raw.toUpperCase(Locale.ROOT).replace(" ", "");
        int unitAt = text.length();
        while (unitAt > 0 && !Character.isDigit(text.charAt(unitAt - 1))) {
          unitAt--;
        }
        long unit = switch (text.substring(unitAt)) {
          case "", "B" -> 1;
          case "KB" -> 1L << 10;
          case "MB" -> 1L << 20;
          case "GB" -> 1L << 30;
          default -> throw new IllegalArgumentException("unknown unit; allowed: " + allowed());
        };
        try {
          return check(Math.multiplyExact(Long.parseLong(text.substring(0, unitAt)), unit));
        } catch (NumberFormatException | ArithmeticException e) {
          throw new IllegalArgumentException("not a size; allowed: " + allowed());
        }
      }

      @Override
      Long check(Long bytes) {
        if (bytes < 0) {
          throw new IllegalArgumentException("must not be negative");
        }
        return bytes;
      }

      @Override
      String allowed() {
        return "a size in bytes, e.g. 0, 65536, 512KB, 8MB, 1GB";
      }
    };
  }

  /** One of the enum's constants, written in lower case with '-' for '_'. */
  static <E extends Enum<E>> ValueParser<E> oneOf(Class<E> type) {
    return new ValueParser<>() {
      @Override
      E parse(String raw) {
        for (E e : type.getEnumConstants()) {
          if (id(e).equalsIgnoreCase(raw)) {
            return e;
          }
        }
        throw new IllegalArgumentException("allowed: " + allowed());
      }

      @Override
      String allowed() {
        List<String> ids = new ArrayList<>();
        for (E e : type.getEnumConstants()) {
          ids.add(id(e));
        }
        return String.join(", ", ids);
      }
    };
  }

  /** How an enum constant is written in properties: {@code X_FORWARDED_FOR} is {@code x-forwarded-for}. */
  static String id(Enum<?> e) {
    return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Free text, not blank. */
  static ValueParser<String> text() {
    return of(
        s -> {
          if (s.isBlank()) {
            throw new IllegalArgumentException("must not be empty");
          }
          return s;
        },
        "text");
  }

  /** An HTTP header name (visible ASCII, no ':'). */
  static ValueParser<String> headerName() {
    return checkedText(
        v -> v.isEmpty() || !v.chars().allMatch(c -> c > 0x20 && c < 0x7f && c != ':')
            ? "not a valid header name"
            : null,
        "a header name");
  }

  /** A path starting with '/'. */
  static ValueParser<String> path() {
    return checkedText(
        v -> v.startsWith("/") ? null : "a path must start with /", "a path starting with /");
  }

  /**
   * Text whose check also applies to text given in code.
   *
   * @param problem the problem with a value, or null when it is fine
   */
  private static ValueParser<String> checkedText(Function<String, String> problem, String allowed) {
    return new ValueParser<>() {
      @Override
      String parse(String raw) {
        return check(raw);
      }

      @Override
      String check(String v) {
        String wrong = problem.apply(v);
        if (wrong != null) {
          throw new IllegalArgumentException(wrong);
        }
        return v;
      }

      @Override
      String allowed() {
        return allowed;
      }
    };
  }

  /** A URI with a scheme. */
  static ValueParser<URI> uri() {
    return of(
        raw -> {
          try {
            URI uri = new URI(raw);
            if (uri.getScheme() == null) {
              throw new IllegalArgumentException("needs a scheme, e.g. redis://host:6379");
            }
            return uri;
          } catch (URISyntaxException e) {
            throw new IllegalArgumentException("not a URI: " + e.getReason());
          }
        },
        "a URI");
  }

  /** A fraction strictly between 0 and 1, written {@code 0.7} or {@code 70%}. */
  static ValueParser<Double> fraction() {
    return new ValueParser<>() {
      @Override
      Double parse(String raw) {
        try {
          return check(
              raw.endsWith("%")
                  ? Double.parseDouble(raw.substring(0, raw.length() - 1).trim()) / 100
                  : Double.parseDouble(raw));
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException("not a number; allowed: " + allowed());
        }
      }

      @Override
      Double check(Double x) {
        if (!(x > 0 && x < 1)) {
          throw new IllegalArgumentException("must be " + allowed());
        }
        return x;
      }

      @Override
      String allowed() {
        return "0 < x < 1 (0.7 or 70%)";
      }
    };
  }

  /** A parser from a function; for values code cannot give in another form. */
  static <T> ValueParser<T> of(Function<String, T> parse, String allowed) {
    return new ValueParser<>() {
      @Override
      T parse(String raw) {
        return parse.apply(raw);
      }

      @Override
      String allowed() {
        return allowed;
      }
    };
  }
}
