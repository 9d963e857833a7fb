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
  private final Map<Kind, RateLimiter> limiters = new ConcurrentHashMap<>();

  /** One limiter per limit and algorithm. */
  private record Kind(RateLimit limit, Algorithm algorithm) {}

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
        new Kind(RateLimit.of(hit.requestsPerUnit(), hit.unit().period()), hit.algorithm()),
        kind -> {
          RateLimiter.Builder limiter =
              RateLimiter.builder(kind.algorithm(), kind.limit()).clock(epochClock);
          if (kind.algorithm() == Algorithm.FIXED_WINDOW
              || kind.algorithm() == Algorithm.SLIDING_WINDOW) {
            limiter.windowOrigin(0);
          }
          return limiter.build();
        });
  }

  @Override
  public String describe() {
    return "local";
  }

  @Override
  public void close() {}
}
