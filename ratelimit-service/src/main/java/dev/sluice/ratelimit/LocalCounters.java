package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts in this process: one core fixed-window {@link RateLimiter} per limit and unit, its windows
 * started at the clock's zero ({@link RateLimiter.Builder#windowOrigin}), so with a clock that reads
 * nanoseconds since the Unix epoch they are aligned to the epoch as envoy/ratelimit's are.
 */
final class LocalCounters implements Counters {

  private final NanoClock epochClock;
  private final Map<RateLimit, RateLimiter> limiters = new ConcurrentHashMap<>();

  /** @param epochClock nanoseconds since the Unix epoch */
  LocalCounters(NanoClock epochClock) {
    this.epochClock = epochClock;
  }

  @Override
  public CompletionStage<List<RateDecision>> take(List<Hit> hits, long epochSecond) {
    List<RateDecision> decisions = new ArrayList<>(hits.size());
    for (Hit hit : hits) {
      decisions.add(limiter(hit).tryAcquire(hit.key(), hit.hits()));
    }
    return CompletableFuture.completedFuture(decisions);
  }

  @Override
  public CompletionStage<Void> giveBack(List<Hit> hits, long epochSecond) {
    for (Hit hit : hits) {
      limiter(hit).refund(hit.key(), hit.hits());
    }
    return CompletableFuture.completedFuture(null);
  }

  private RateLimiter limiter(Hit hit) {
    return limiters.computeIfAbsent(
        RateLimit.of(hit.requestsPerUnit(), hit.unit().period()),
        limit -> RateLimiter.builder(Algorithm.FIXED_WINDOW, limit)
            .clock(epochClock)
            .windowOrigin(0)
            .build());
  }

  @Override
  public String describe() {
    return "local";
  }

  @Override
  public void close() {}
}
