package dev.sluice.rate;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/** The rate-limiting algorithms Sluice offers, each with its trade-off. */
public enum Algorithm {
  /** Bursts up to the capacity, refills continuously; the usual default. */
  TOKEN_BUCKET("token-bucket"),
  /** A meter with a burst allowance (nginx {@code limit_req}): smooth outflow, excess rejected. */
  LEAKY_BUCKET("leaky-bucket"),
  /** A shaper: within the burst, admits with a delay to wait instead of rejecting. */
  LEAKY_BUCKET_SHAPER("leaky-bucket-shaper"),
  /** One counter per window: cheap and lock-free, but up to twice the limit across a window edge. */
  FIXED_WINDOW("fixed-window"),
  /** Exact: one timestamp per admitted request in the window; memory grows with the limit. */
  SLIDING_LOG("sliding-log"),
  /** Weighted estimate: current window plus the previous one scaled by its overlap. */
  SLIDING_WINDOW("sliding-window"),
  /** Generic cell rate algorithm: one theoretical arrival time per key. */
  GCRA("gcra");

  private final String id;

  Algorithm(String id) {
    this.id = id;
  }

  /** The name used in rules files and properties, e.g. {@code token-bucket}. */
  public String id() {
    return id;
  }

  /**
   * Finds an algorithm by its {@link #id()} (case-insensitive; {@code _} and {@code -} alike).
   *
   * @throws IllegalArgumentException naming the value and listing the allowed ids
   */
  public static Algorithm fromId(String id) {
    if (id != null) {
      String normalized = id.trim().toLowerCase(Locale.ROOT).replace('_', '-');
      for (Algorithm algorithm : values()) {
        if (algorithm.id.equals(normalized)) {
          return algorithm;
        }
      }
    }
    throw new IllegalArgumentException("unknown algorithm '" + id + "'; allowed: " + allowedIds());
  }

  /** The allowed ids, comma separated, for error messages. */
  public static String allowedIds() {
    return Arrays.stream(values()).map(Algorithm::id).collect(Collectors.joining(", "));
  }
}
