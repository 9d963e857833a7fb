package dev.sluice.client;

import dev.sluice.rate.RateLimit;
import java.net.http.HttpHeaders;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Reads every rate-limit header family a server may send, into one {@link RateLimitAdvice}:
 *
 * <ul>
 *   <li>the IETF draft (draft-ietf-httpapi-ratelimit-headers-08 to -11, Sluice's own answer):
 *       {@code RateLimit-Policy: "id";q=2000;w=1} (a quota {@code q} per window {@code w} seconds;
 *       the most restrictive policy wins) and {@code RateLimit: "id";r=0;t=3} (available quota
 *       {@code r}, effective window {@code t} seconds: -10 calls them remaining and reset, same
 *       syntax). Only a quota counted in requests paces: a policy whose quota unit {@code qu} is
 *       another ({@code "concurrent-requests"}, {@code "content-bytes"}) is no rate, and is not
 *       read as one; a partition key {@code pk} is skipped;
 *   <li>the older drafts: {@code RateLimit-Limit} / {@code RateLimit-Remaining} /
 *       {@code RateLimit-Reset}, a policy as {@code 100;w=60}, and the combined
 *       {@code RateLimit: limit=100, remaining=0, reset=5};
 *   <li>the de-facto {@code X-RateLimit-Limit} / {@code -Remaining} / {@code -Reset} (seconds, or a
 *       Unix time when larger than 10^9) / {@code -Retry-After}; the limit counts per
 *       {@code xWindow}, since that family does not say its window;
 *   <li>{@code Retry-After} (seconds or HTTP-date), read on every response.
 * </ul>
 *
 * <p>A malformed value is skipped, never thrown: a server's typo must not fail the request that
 * carried it. Remaining 0 with a reset time is a pause until the reset; a non-zero remaining is not
 * turned into a pace, since the window's quota comes back whole at the reset.
 */
public final class RateLimitHeaders {

  private static final long UNIX_TIME_THRESHOLD = 1_000_000_000L;

  private final Clock wall;
  private final Duration xWindow;

  /**
   * @param wall the wall clock, only for HTTP-dates and Unix reset times
   * @param xWindow the window {@code X-RateLimit-Limit} counts over (1 s for Sluice's X headers)
   */
  public RateLimitHeaders(Clock wall, Duration xWindow) {
    if (wall == null) {
      throw new IllegalArgumentException("wall clock must not be null");
    }
    if (xWindow == null || xWindow.toNanos() < 1_000) {
      throw new IllegalArgumentException(
          "xWindow must be at least 1 microsecond but was " + xWindow);
    }
    this.wall = wall;
    this.xWindow = xWindow;
  }

  /** The advice of one response's headers; {@link RateLimitAdvice#NONE} when there is none. */
  public RateLimitAdvice read(HttpHeaders headers) {
    Optional<RateLimit> pace = Optional.empty();
    Duration pause = Duration.ZERO;

    pace = tighter(pace, draftPolicy(headers.allValues("RateLimit-Policy")));
    for (String value : headers.allValues("RateLimit")) {
      pause = longer(pause, draftRateLimit(value));
    }
    // draft-06/07 separate fields (their Limit is per the policy's window; without one, per second)
    Optional<Long> draftLimit = number(headers.firstValue("RateLimit-Limit"));
    if (draftLimit.isPresent() && draftLimit.get() > 0) {
      pace = tighter(pace, Optional.of(RateLimit.of(draftLimit.get(), Duration.ofSeconds(1))));
    }
    pause = longer(
        pause,
        exhausted(
            headers.firstValue("RateLimit-Remaining"), headers.firstValue("RateLimit-Reset")));

    Optional<Long> xLimit = number(headers.firstValue("X-RateLimit-Limit"));
    if (xLimit.isPresent() && xLimit.get() > 0) {
      pace = tighter(pace, Optional.of(RateLimit.of(xLimit.get(), xWindow)));
    }
    Optional<String> xRemaining = headers.firstValue("X-RateLimit-Remaining");
    pause = longer(pause, exhausted(xRemaining, headers.firstValue("X-RateLimit-Reset")));
    pause = longer(pause, exhausted(xRemaining, headers.firstValue("X-RateLimit-Retry-After")));

    Optional<Duration> retryAfter =
        RetryAfter.parse(headers.firstValue("Retry-After").orElse(null), wall);
    if (retryAfter.isPresent()) {
      pause = longer(pause, retryAfter.get());
    }
    if (pace.isEmpty() && pause.isZero()) {
      return RateLimitAdvice.NONE;
    }
    return new RateLimitAdvice(pace, pause);
  }

  /** The most restrictive of the listed policies, each {@code token-or-string;q=N;w=S} or {@code N;w=S}. */
  private static Optional<RateLimit> draftPolicy(List<String> values) {
    Optional<RateLimit> pace = Optional.empty();
    for (String value : values) {
      for (String member : splitList(value)) {
        List<String> parts = splitParams(member);
        Map<String, String> params = params(parts);
        String unit = params.get("qu");
        if (unit != null && !"\"requests\"".equals(unit)) {
          continue; // a quota of concurrent requests or bytes is no request rate
        }
        Optional<Long> quota = number(Optional.ofNullable(params.get("q")));
        if (quota.isEmpty()) {
          quota = number(Optional.of(parts.get(0))); // draft-07: the item itself is the quota
        }
        Optional<Long> window = number(Optional.ofNullable(params.get("w")));
        if (quota.isPresent()
            && quota.get() > 0
            && window.isPresent()
            && window.get() > 0
            && window.get() <= RetryAfter.MAX.toSeconds() * 24) {
          pace = tighter(
              pace, Optional.of(RateLimit.of(quota.get(), Duration.ofSeconds(window.get()))));
        }
      }
    }
    return pace;
  }

  /** {@code "id";r=0;t=3} (draft-08+) or {@code limit=10, remaining=0, reset=3} (draft-06). */
  private Duration draftRateLimit(String value) {
    Duration pause = Duration.ZERO;
    for (String member : splitList(value)) {
      Map<String, String> params = params(splitParams(member));
      pause = longer(
          pause,
          exhausted(Optional.ofNullable(params.get("r")), Optional.ofNullable(params.get("t"))));
    }
    // draft-06 puts the keys in one dictionary, one per list member
    Map<String, String> dictionary = new TreeMap<>();
    for (String member : splitList(value)) {
      int eq = member.indexOf('=');
      if (eq > 0 && member.indexOf(';') < 0) {
        dictionary.put(
            member.substring(0, eq).trim().toLowerCase(Locale.ROOT),
            member.substring(eq + 1).trim());
      }
    }
    return longer(
        pause,
        exhausted(
            Optional.ofNullable(dictionary.get("remaining")),
            Optional.ofNullable(dictionary.get("reset"))));
  }

  /** A pause until the reset when nothing remains; zero otherwise or when either value is unreadable. */
  private Duration exhausted(Optional<String> remaining, Optional<String> reset) {
    Optional<Long> left = number(remaining);
    Optional<Long> resetValue = number(reset);
    if (left.isEmpty() || left.get() != 0 || resetValue.isEmpty()) {
      return Duration.ZERO;
    }
    long r = resetValue.get();
    if (r > UNIX_TIME_THRESHOLD) {
      long delta = r - wall.instant().getEpochSecond();
      return delta <= 0
          ? Duration.ZERO
          : Duration.ofSeconds(Math.min(delta, RetryAfter.MAX.toSeconds()));
    }
    return Duration.ofSeconds(Math.min(r, RetryAfter.MAX.toSeconds()));
  }

  /** A non-negative integer (Structured Fields allow at most 15 digits), or empty. */
  static Optional<Long> number(Optional<String> value) {
    if (value.isEmpty()) {
      return Optional.empty();
    }
    String v = value.get().trim();
    if (v.length() > 15 || !RetryAfter.isDigits(v)) {
      return Optional.empty();
    }
    return Optional.of(Long.parseLong(v));
  }

  /** Splits a list on commas outside quoted strings. */
  private static List<String> splitList(String value) {
    return split(value, ',');
  }

  private static List<String> splitParams(String member) {
    return split(member, ';');
  }

  private static List<String> split(String value, char separator) {
    List<String> out = new ArrayList<>();
    StringBuilder current = new StringBuilder();
    boolean quoted = false;
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\' && quoted && i + 1 < value.length()) {
        current.append(c).append(value.charAt(++i));
        continue;
      }
      if (c == '"') {
        quoted = !quoted;
      }
      if (c == separator && !quoted) {
        out.add(current.toString().trim());
        current.setLength(0);
      } else {
        current.append(c);
      }
    }
    out.add(current.toString().trim());
    return out;
  }

  /** The {@code key=value} parameters after the first part; keys lower-cased. */
  private static Map<String, String> params(List<String> parts) {
    Map<String, String> params = new TreeMap<>();
    for (int i = 1; i < parts.size(); i++) {
      String p = parts.get(i);
      int eq = p.indexOf('=');
      if (eq > 0) {
        params.put(
            p.substring(0, eq).trim().toLowerCase(Locale.ROOT),
            p.substring(eq + 1).trim());
      }
    }
    return params;
  }

  private static Optional<RateLimit> tighter(Optional<RateLimit> a, Optional<RateLimit> b) {
    if (a.isEmpty()) {
      return b;
    }
    if (b.isEmpty()) {
      return a;
    }
    return RateLimitAdvice.perSecond(b.get()) < RateLimitAdvice.perSecond(a.get()) ? b : a;
  }

  private static Duration longer(Duration a, Duration b) {
    return b.compareTo(a) > 0 ? b : a;
  }
}
