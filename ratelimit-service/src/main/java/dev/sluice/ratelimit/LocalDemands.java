package dev.sluice.ratelimit;

import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** The demands of the streams of this process only (no {@code sluice.redis.uri}). */
final class LocalDemands implements Demands {

  private record Demand(double perSecond, long expiresAtNanos) {}

  private final NanoClock clock;

  // one lock for all buckets: a report is one small map operation per reporting interval per
  // stream and bucket (seconds apart), far from any hot path
  private final Map<String, Map<String, Demand>> byBucket = new HashMap<>();

  LocalDemands(NanoClock clock) {
    this.clock = clock;
  }

  @Override
  public CompletionStage<SortedMap<String, Double>> report(
      String bucket, String stream, double perSecond, Duration ttl) {
    long now = clock.nanoTime();
    SortedMap<String, Double> live = new TreeMap<>();
    synchronized (byBucket) {
      Map<String, Demand> demands = byBucket.computeIfAbsent(bucket, b -> new HashMap<>());
      demands.put(stream, new Demand(perSecond, now + ttl.toNanos()));
      // compared by difference: the virtual clocks of the tests start near Long.MAX_VALUE
      demands.values().removeIf(d -> d.expiresAtNanos() - now <= 0);
      demands.forEach((s, d) -> live.put(s, d.perSecond()));
    }
    return CompletableFuture.completedFuture(live);
  }

  @Override
  public void withdraw(String bucket, String stream) {
    synchronized (byBucket) {
      Map<String, Demand> demands = byBucket.get(bucket);
      if (demands != null) {
        demands.remove(stream);
        if (demands.isEmpty()) {
          byBucket.remove(bucket);
        }
      }
    }
  }

  @Override
  public String describe() {
    return "local";
  }

  @Override
  public void close() {}
}
