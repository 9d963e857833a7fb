package dev.sluice.ratelimit;

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
 */
record DescriptorLimit(
    long requestsPerUnit,
    Unit unit,
    boolean unlimited,
    boolean shadow,
    String name,
    List<String> replaces) {

  DescriptorLimit {
    replaces = List.copyOf(replaces);
  }

  /** A request's own limit ({@code RateLimitDescriptor.limit}): never shadow, no name. */
  static DescriptorLimit override(long requestsPerUnit, Unit unit) {
    return new DescriptorLimit(requestsPerUnit, unit, false, false, "", List.of());
  }
}
