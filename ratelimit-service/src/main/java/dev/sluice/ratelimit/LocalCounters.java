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
import java.util.concurrent.atomic.AtomicLong;

/**
 * Counts in this process. envoy/ratelimit's fixed windows are counts per key and epoch-aligned
 * window, counted whatever they are (a refused hit uses up the window too, as its {@code INCRBY}
 * does); another algorithm is a core {@link RateLimiter} per limit, on a clock that reads
 * nanoseconds since the Unix epoch.
 */
final class LocalCounters implements Counters {

  /** How many fixed-window hits between two sweeps of the windows that have ended. */
  private static final long SWEEP_EVERY = 1_024;

  private final NanoClock epochClock;
  private final Map<Kind, RateLimiter> limiters = new ConcurrentHashMap<>();
  private final Map<Counter, Count> windows = new ConcurrentHashMap<>();
  private final AtomicLong counted = new AtomicLong();

  /** One limiter per limit and algorithm. */
  private record Kind(RateLimit limit, Algorithm algorithm) {}

  /**
   * One fixed-window count per key and unit, as envoy/ratelimit's counter is named by its key and
   * window: a changed {@code requests_per_unit} goes on from the window's count.
   */
  private record Counter(String key, Unit unit) {}

  /** The window a count is for, by its start (epoch second), and the hits counted there. */
  private record Count(long start, long hits) {}

  /** @param epochClock nanoseconds since the Unix epoch */
  LocalCounters(NanoClock epochClock) {
    this.epochClock = epochClock;
  }

  @Override
  public CompletionStage<List<RateDecision>> take(List<Hit> hits, long epochSecond) {
    List<RateDecision> decisions = new ArrayList<>(hits.size());
    for (Hit hit : hits) {
      decisions.add(
          hit.algorithm() == Algorithm.FIXED_WINDOW
              ? count(hit, epochSecond)
              : limiter(hit).tryAcquire(hit.key(), hit.hits()));
    }
    return CompletableFuture.completedFuture(decisions);
  }

  private RateDecision count(Hit hit, long epochSecond) {
    long start = StoreCounters.windowStart(epochSecond, hit.unit());
    // a decision that read an earlier second than the window's start counts on the window open now
    Count after = windows.merge(
        new Counter(hit.key(), hit.unit()),
        new Count(start, hit.hits()),
        (now, added) -> added.start() > now.start()
            ? added
            : new Count(now.start(), now.hits() + added.hits()));
    if (counted.incrementAndGet() % SWEEP_EVERY == 0) {
      windows
          .entrySet()
          .removeIf(e -> e.getValue().start() + e.getKey().unit().seconds() <= epochSecond);
    }
    long resetNanos = hit.unit().secondsUntilReset(epochSecond) * 1_000_000_000L;
    long limit = hit.requestsPerUnit();
    return after.hits() <= limit
        ? RateDecision.allowed(limit, limit - after.hits(), resetNanos)
        : RateDecision.rejected(limit, resetNanos, resetNanos);
  }

  @Override
  public CompletionStage<Void> giveBack(List<Hit> hits, long epochSecond) {
    for (Hit hit : hits) {
      if (hit.algorithm() == Algorithm.FIXED_WINDOW) {
        long start = StoreCounters.windowStart(epochSecond, hit.unit());
        windows.computeIfPresent(
            new Counter(hit.key(), hit.unit()),
            (counter, now) -> now.start() == start
                ? new Count(start, Math.max(0, now.hits() - hit.hits()))
                : now);
      } else {
        limiter(hit).refund(hit.key(), hit.hits());
      }
    }
    return CompletableFuture.completedFuture(null);
  }

  private RateLimiter limiter(Hit hit) {
    return limiters.computeIfAbsent(
        new Kind(RateLimit.of(hit.requestsPerUnit(), hit.unit().period()), hit.algorithm()),
        kind -> {
          RateLimiter.Builder limiter =
              RateLimiter.builder(kind.algorithm(), kind.limit()).clock(epochClock);
          if (kind.algorithm() == Algorithm.SLIDING_WINDOW) {
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
