package dev.sluice.ratelimit;

import dev.sluice.rate.RateDecision;
import dev.sluice.time.NanoClock;
import io.envoyproxy.envoy.config.core.v3.HeaderValue;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * {@code ShouldRateLimit} with envoy/ratelimit's semantics: each request descriptor walks its
 * domain's tree entry by entry ({@code key_value} first, then the level's wildcards in file order,
 * then {@code key} alone, which matches any value and counts per value); the limit of the level
 * the last entry reaches applies. A request's own limit ({@code descriptor.limit}) replaces the
 * file's for a configured domain. Limits named in another applying limit's {@code replaces} do not
 * apply. Each applying limit counts its hits in its own epoch-aligned window; a descriptor over its
 * limit makes the answer {@code OVER_LIMIT} unless it is in shadow mode (then it is answered OK
 * and counted in {@link #shadowOverLimit()}). The IETF {@code RateLimit-*} headers describe the
 * most constrained descriptor.
 */
final class ShouldRateLimit {

  static final int MAX_UINT32 = -1; // 4294967295 as a protobuf uint32

  private final Supplier<DescriptorConfig> config;
  private final Counters counters;
  private final NanoClock epochClock;
  private final LongAdder shadowOverLimit = new LongAdder();

  /**
   * @param config the descriptors in force
   * @param counters where hits are counted
   * @param epochClock nanoseconds since the Unix epoch: the windows and {@code
   *     duration_until_reset}
   */
  ShouldRateLimit(Supplier<DescriptorConfig> config, Counters counters, NanoClock epochClock) {
    this.config = config;
    this.counters = counters;
    this.epochClock = epochClock;
  }

  /** How many descriptors in shadow mode were over their limit (and answered OK). */
  long shadowOverLimit() {
    return shadowOverLimit.sum();
  }

  /** A descriptor's applying limit and the key it counts on. */
  record Match(DescriptorLimit limit, String counterKey) {}

  /**
   * Decides a request; the stage completes with the answer (never exceptionally).
   *
   * @throws BadRequestException for a request that cannot be decided (empty domain, no
   *     descriptors, an override with an unknown unit, hits beyond the counters' range)
   */
  CompletionStage<RateLimitResponse> decide(RateLimitRequest request) {
    if (request.getDomain().isEmpty()) {
      throw new BadRequestException("rate limit domain must not be empty");
    }
    if (request.getDescriptorsCount() == 0) {
      throw new BadRequestException("rate limit descriptor list must not be empty");
    }
    if (request.getHitsAddend() < 0) {
      throw new BadRequestException(
          "hits_addend " + Integer.toUnsignedString(request.getHitsAddend())
              + " is more than this service counts (at most 2147483647)");
    }
    long requestHits = Math.max(1, request.getHitsAddend());
    DescriptorNode root = config.get().domain(request.getDomain());
    int n = request.getDescriptorsCount();
    Match[] matches = new Match[n];
    long[] hits = new long[n];
    Set<String> replaced = null; // the names other applying limits replace; most have none
    for (int i = 0; i < n; i++) {
      RateLimitDescriptor descriptor = request.getDescriptors(i);
      hits[i] = requestHits;
      if (descriptor.hasHitsAddend()) {
        hits[i] = descriptor.getHitsAddend().getValue();
        if (hits[i] < 0) {
          throw new BadRequestException("descriptors[" + i + "].hits_addend "
              + Long.toUnsignedString(hits[i]) + " is more than this service counts");
        }
      }
      if (root == null) {
        continue; // a domain no file configures: no limit applies (envoy/ratelimit: OK)
      }
      matches[i] = descriptor.hasLimit()
          ? override(request.getDomain(), descriptor, i)
          : match(request.getDomain(), root, descriptor);
      if (matches[i] != null && !matches[i].limit().replaces().isEmpty()) {
        if (replaced == null) {
          replaced = new HashSet<>();
        }
        replaced.addAll(matches[i].limit().replaces());
      }
    }
    for (int i = 0; replaced != null && i < n; i++) {
      if (matches[i] != null
          && !matches[i].limit().name().isEmpty()
          && replaced.contains(matches[i].limit().name())) {
        matches[i] = null;
      }
    }
    List<Counters.Hit> counted = new ArrayList<>(n);
    int[] countedAt = new int[n]; // the descriptor of each counted hit
    for (int i = 0; i < n; i++) {
      DescriptorLimit limit = matches[i] == null ? null : matches[i].limit();
      if (limit != null && !limit.unlimited() && limit.requestsPerUnit() > 0) {
        // hits_addend 0 on a descriptor checks without counting (envoy/ratelimit: INCRBY 0): one
        // hit, given back below. A fixed window counts it against one more than the limit and it
        // is given back whatever the answer: allowed exactly when the count was within the limit,
        // with the limit less the count remaining, as envoy/ratelimit answers
        boolean checkedWindow = hits[i] == 0 && limit.epochWindows();
        counted.add(new Counters.Hit(
            matches[i].counterKey(),
            checkedWindow ? limit.requestsPerUnit() + 1 : limit.requestsPerUnit(),
            limit.unit(),
            Math.max(1, hits[i]),
            limit.algorithm(),
            hits[i] == 0));
        countedAt[counted.size() - 1] = i;
      }
    }
    long epochSecond = Math.floorDiv(epochClock.nanoTime(), 1_000_000_000L);
    if (counted.isEmpty()) {
      return CompletableFuture.completedFuture(
          answer(matches, hits, new RateDecision[n], epochSecond));
    }
    return counters.take(counted, epochSecond).thenCompose(decisions -> {
      RateDecision[] byDescriptor = new RateDecision[n];
      List<Counters.Hit> checkOnly = null; // hits_addend 0 is rare: made when there is one
      for (int k = 0; k < decisions.size(); k++) {
        int i = countedAt[k];
        byDescriptor[i] = decisions.get(k);
        if (hits[i] == 0 && (decisions.get(k).allowed() || matches[i].limit().epochWindows())) {
          if (checkOnly == null) {
            checkOnly = new ArrayList<>();
          }
          checkOnly.add(counted.get(k));
        }
      }
      RateLimitResponse response = answer(matches, hits, byDescriptor, epochSecond);
      if (checkOnly == null) {
        return CompletableFuture.completedFuture(response);
      }
      return counters.giveBack(checkOnly, epochSecond).handle((ignored, failure) -> response);
    });
  }

  private static Match override(String domain, RateLimitDescriptor descriptor, int i) {
    RateLimitDescriptor.RateLimitOverride limit = descriptor.getLimit();
    Unit unit = Unit.ofOverride(limit.getUnitValue());
    if (unit == null) {
      throw new BadRequestException("descriptors[" + i + "].limit.unit: unknown unit "
          + limit.getUnit() + " (" + limit.getUnitValue() + "); allowed: " + Unit.allowed());
    }
    List<RateLimitDescriptor.Entry> entries = descriptor.getEntriesList();
    String[] values = new String[entries.size()];
    for (int e = 0; e < values.length; e++) {
      values[e] = entries.get(e).getValue();
    }
    return new Match(
        DescriptorLimit.override(Integer.toUnsignedLong(limit.getRequestsPerUnit()), unit),
        counterKey(domain, entries, values));
  }

  /**
   * The limit that applies to {@code descriptor} in the domain's tree, or null: envoy/ratelimit's
   * {@code GetLimit}, step for step.
   */
  static Match match(String domain, DescriptorNode root, RateLimitDescriptor descriptor) {
    DescriptorNode level = root;
    DescriptorLimit found = null;
    List<RateLimitDescriptor.Entry> entries = descriptor.getEntriesList();
    String[] counted = new String[entries.size()];
    for (int i = 0; i < entries.size(); i++) {
      RateLimitDescriptor.Entry entry = entries.get(i);
      counted[i] = entry.getValue();
      String composite = entry.getKey() + "_" + entry.getValue();
      DescriptorNode next = level.child(composite);
      if (next == null) {
        for (DescriptorNode.Wildcard wildcard : level.wildcards()) {
          if (DescriptorNode.matches(wildcard.parts(), composite)) {
            next = level.child(wildcard.compositeKey());
            if (next.shareThreshold() && next.wildcardValue() != null) {
              counted[i] = next.wildcardValue(); // one counter for every value it matches
            }
            break;
          }
        }
      }
      if (next == null) {
        next = level.child(entry.getKey());
      }
      if (next != null && next.limit() != null && i == entries.size() - 1) {
        found = next.limit();
      }
      if (next == null || next.children().isEmpty()) {
        break;
      }
      level = next;
    }
    if (found == null) {
      return null;
    }
    return new Match(found, counterKey(domain, entries, counted));
  }

  /** envoy/ratelimit's counter key: the domain, then each entry's key and counted value. */
  private static String counterKey(
      String domain, List<RateLimitDescriptor.Entry> entries, String[] values) {
    int length = domain.length() + 1;
    for (int i = 0; i < entries.size(); i++) {
      length += entries.get(i).getKey().length() + values[i].length() + 2;
    }
    StringBuilder key = new StringBuilder(length).append(domain).append('_');
    for (int i = 0; i < entries.size(); i++) {
      key.append(entries.get(i).getKey()).append('_').append(values[i]).append('_');
    }
    return key.toString();
  }

  private RateLimitResponse answer(
      Match[] matches, long[] hits, RateDecision[] decisions, long epochSecond) {
    RateLimitResponse.Builder response = RateLimitResponse.newBuilder();
    boolean over = false;
    DescriptorStatus constrained = null;
    long leastRemaining = 0xFFFF_FFFFL;
    for (int i = 0; i < matches.length; i++) {
      DescriptorLimit limit = matches[i] == null ? null : matches[i].limit();
      DescriptorStatus status;
      if (limit == null) {
        status = DescriptorStatus.newBuilder().setCode(Code.OK).build();
      } else if (limit.unlimited()) {
        status = DescriptorStatus.newBuilder()
            .setCode(Code.OK)
            .setLimitRemaining(MAX_UINT32)
            .build();
      } else {
        RateDecision decision = decisions[i];
        boolean overLimit;
        long remaining;
        if (decision == null) { // requests_per_unit 0: every hit is over
          overLimit = hits[i] > 0;
          remaining = 0;
        } else if (hits[i] == 0 && limit.epochWindows()) { // checked against the limit + 1
          overLimit = !decision.allowed();
          remaining = decision.allowed() ? decision.remaining() : 0;
        } else if (hits[i] == 0) { // checked, not counted: it was one hit from full if allowed
          overLimit = false;
          remaining = decision.allowed() ? decision.remaining() + 1 : 0;
        } else {
          overLimit = !decision.allowed();
          remaining = decision.allowed() ? decision.remaining() : 0;
        }
        if (overLimit && limit.shadow()) {
          shadowOverLimit.increment();
        }
        boolean rejects = overLimit && !limit.shadow();
        status = DescriptorStatus.newBuilder()
            .setCode(rejects ? Code.OVER_LIMIT : Code.OK)
            .setCurrentLimit(RateLimitResponse.RateLimit.newBuilder()
                .setRequestsPerUnit((int) limit.requestsPerUnit())
                .setUnit(limit.unit().proto())
                .setName(limit.name()))
            .setLimitRemaining((int) remaining)
            .setDurationUntilReset(com.google.protobuf.Duration.newBuilder()
                .setSeconds(untilReset(limit, decision, epochSecond)))
            .build();
        // envoy/ratelimit's choice: the least remaining, and a rejecting descriptor above all
        if (remaining < leastRemaining) {
          constrained = status;
          leastRemaining = remaining;
        }
        if (rejects) {
          over = true;
          constrained = status;
          leastRemaining = 0;
        }
      }
      response.addStatuses(status);
    }
    response.setOverallCode(over ? Code.OVER_LIMIT : Code.OK);
    if (constrained != null) {
      response
          .addResponseHeadersToAdd(header(
              "RateLimit-Limit",
              Integer.toUnsignedString(constrained.getCurrentLimit().getRequestsPerUnit())))
          .addResponseHeadersToAdd(header(
              "RateLimit-Remaining", Integer.toUnsignedString(constrained.getLimitRemaining())))
          .addResponseHeadersToAdd(header(
              "RateLimit-Reset",
              Long.toString(constrained.getDurationUntilReset().getSeconds())));
    }
    return response.build();
  }

  /**
   * Seconds until the descriptor's limit is whole again: the end of the unit for envoy/ratelimit's
   * windows; for another algorithm, when its state for the key is full again (rounded up).
   */
  private static long untilReset(DescriptorLimit limit, RateDecision decision, long epochSecond) {
    if (limit.epochWindows() || decision == null) {
      return limit.unit().secondsUntilReset(epochSecond);
    }
    long nanos = decision.resetAfterNanos();
    return nanos <= 0 ? 0 : (nanos - 1) / 1_000_000_000L + 1;
  }

  private static HeaderValue header(String name, String value) {
    return HeaderValue.newBuilder().setKey(name).setValue(value).build();
  }
}
