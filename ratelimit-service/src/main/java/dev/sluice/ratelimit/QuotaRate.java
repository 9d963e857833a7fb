package dev.sluice.ratelimit;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.time.DurationText;
import java.time.Duration;
import java.util.Locale;

/**
 * A bucket's quota: {@code requests} per {@code period}, for all the proxies that report the
 * bucket together; or {@link #UNLIMITED}. Written {@code 100/1s}, {@code 6000/1m}, {@code 50/10s},
 * {@code 0/1s} (deny all) or {@code unlimited}.
 *
 * @param requests the requests per period, 0 or more; -1 for {@link #UNLIMITED}
 * @param period the period, at least 1 ms; null for {@link #UNLIMITED}
 */
record QuotaRate(long requests, Duration period) {

  /** Every request passes: proxies are told to allow all. */
  static final QuotaRate UNLIMITED = new QuotaRate(-1, null);

  /** The forms accepted, for error messages. */
  static final String FORMS = "unlimited, or requests/period such as 100/1s, 6000/1m, 0/1s";

  boolean unlimited() {
    return requests < 0;
  }

  /** The quota in requests per second. */
  double perSecond() {
    return requests * 1e9 / period.toNanos();
  }

  /**
   * Reads {@code raw}, the value of {@code key} from {@code source}.
   *
   * @throws SluiceConfigException naming the key, the value and the source
   */
  static QuotaRate parse(String key, String raw, String source) {
    String text = raw == null ? "" : raw.trim();
    if (text.toLowerCase(Locale.ROOT).equals("unlimited")) {
      return UNLIMITED;
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      throw new SluiceConfigException(key, raw, source, "allowed: " + FORMS);
    }
    long requests;
    try {
      requests = Long.parseLong(text.substring(0, slash).trim());
    } catch (NumberFormatException e) {
      throw new SluiceConfigException(
          key, raw, source, "the requests must be a whole number; allowed: " + FORMS);
    }
    if (requests < 0) {
      throw new SluiceConfigException(key, raw, source, "the requests must not be negative");
    }
    Duration period;
    try {
      period = DurationText.parse(text.substring(slash + 1));
    } catch (IllegalArgumentException e) {
      throw new SluiceConfigException(key, raw, source, "the period: " + e.getMessage());
    }
    if (period.compareTo(Duration.ofMillis(1)) < 0) {
      throw new SluiceConfigException(key, raw, source, "the period must be at least 1ms");
    }
    return new QuotaRate(requests, period);
  }

  @Override
  public String toString() {
    return unlimited() ? "unlimited" : requests + "/" + period;
  }
}
