package dev.sluice.ratelimit;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The units of envoy/ratelimit's {@code rate_limit: {unit}}, each a fixed window of whole seconds
 * aligned to the Unix epoch, as envoy/ratelimit divides time: a month is 30 days and a year 365.
 */
enum Unit {
  SECOND(1, RateLimitResponse.RateLimit.Unit.SECOND),
  MINUTE(60, RateLimitResponse.RateLimit.Unit.MINUTE),
  HOUR(3_600, RateLimitResponse.RateLimit.Unit.HOUR),
  DAY(86_400, RateLimitResponse.RateLimit.Unit.DAY),
  WEEK(7 * 86_400, RateLimitResponse.RateLimit.Unit.WEEK),
  MONTH(30 * 86_400, RateLimitResponse.RateLimit.Unit.MONTH),
  YEAR(365 * 86_400, RateLimitResponse.RateLimit.Unit.YEAR);

  private final long seconds;
  private final RateLimitResponse.RateLimit.Unit proto;
  private final Duration period;
  private final Duration twoPeriods;

  Unit(long seconds, RateLimitResponse.RateLimit.Unit proto) {
    this.seconds = seconds;
    this.proto = proto;
    this.period = Duration.ofSeconds(seconds);
    this.twoPeriods = period.multipliedBy(2);
  }

  long seconds() {
    return seconds;
  }

  Duration period() {
    return period;
  }

  /** Two units: how long a fixed window's counter lives in a store (see StoreCounters). */
  Duration twoPeriods() {
    return twoPeriods;
  }

  RateLimitResponse.RateLimit.Unit proto() {
    return proto;
  }

  /** The unit of a YAML file's {@code unit: minute} (any case), or null when it names none. */
  static Unit parse(String text) {
    String upper = text.trim().toUpperCase(Locale.ROOT);
    for (Unit unit : values()) {
      if (unit.name().equals(upper)) {
        return unit;
      }
    }
    return null;
  }

  /**
   * The unit of a request's limit override ({@code envoy.type.v3.RateLimitUnit}, whose numbers are
   * those of the response's unit), or null for {@code UNKNOWN} or a number no unit has.
   */
  static Unit ofOverride(int number) {
    for (Unit unit : values()) {
      if (unit.proto.getNumber() == number) {
        return unit;
      }
    }
    return null;
  }

  /** Seconds from {@code epochSecond} to the end of its window. */
  long secondsUntilReset(long epochSecond) {
    return seconds - Math.floorMod(epochSecond, seconds);
  }

  static String allowed() {
    return Arrays.stream(values())
        .map(u -> u.name().toLowerCase(Locale.ROOT))
        .collect(Collectors.joining(", "));
  }
}
