package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import java.util.List;

/**
 * One descriptor's {@code rate_limit}, as envoy/ratelimit reads it.
 *
 * @param requestsPerUnit the limit per window (0: every hit is over the limit)
 * @param unit the window; null when {@code unlimited}
 * @param unlimited {@code unlimited: true}: never counted, always OK
 * @param shadow the descriptor's {@code shadow_mode}: counted, reported, answered OK
 * @param name the limit's {@code name} ("" for none), which another limit's {@code replaces} names
 * @param replaces the names of the limits this one replaces when both apply to one request
 * @param algorithm how the limit is counted: envoy/ratelimit's fixed window of one unit, aligned to
 *     the Unix epoch, unless the descriptor's {@code algorithm} (a Sluice extension) names another
 */
record DescriptorLimit(
    long requestsPerUnit,
    Unit unit,
    boolean unlimited,
    boolean shadow,
    String name,
    List<String> replaces,
    Algorithm algorithm) {

  DescriptorLimit {
    replaces = List.copyOf(replaces);
    java.util.Objects.requireNonNull(algorithm, "algorithm");
  }

  DescriptorLimit(
      long requestsPerUnit,
      Unit unit,
      boolean unlimited,
      boolean shadow,
      String name,
      List<String> replaces) {
    this(requestsPerUnit, unit, unlimited, shadow, name, replaces, Algorithm.FIXED_WINDOW);
  }

  /** A request's own limit ({@code RateLimitDescriptor.limit}): never shadow, no name. */
  static DescriptorLimit override(long requestsPerUnit, Unit unit) {
    return new DescriptorLimit(requestsPerUnit, unit, false, false, "", List.of());
  }

  /** Whether the windows are envoy/ratelimit's: fixed, of one unit, aligned to the epoch. */
  boolean epochWindows() {
    return algorithm == Algorithm.FIXED_WINDOW;
  }
}
