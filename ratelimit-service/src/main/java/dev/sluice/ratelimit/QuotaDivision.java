package dev.sluice.ratelimit;

import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction.QuotaAssignmentAction;
import java.time.Duration;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * The service's side of RLQS: from one proxy's usage of one bucket, the assignment that proxy gets
 * — its share of the bucket's quota, divided among every stream that reports the bucket (on this
 * replica, or on any replica when the demands live in Redis) by {@link FairShare}.
 */
final class QuotaDivision implements AutoCloseable {

  /** A proxy's assignment outlives this many of its reporting intervals, unless configured. */
  static final int TTL_INTERVALS = 3;

  /**
   * The shortest TTL given unless configured: a bucket's first report may come right after its
   * first request, with a {@code time_elapsed} of almost nothing.
   */
  static final Duration MIN_TTL = Duration.ofSeconds(1);

  private final QuotaRules rules;
  private final Demands demands;

  QuotaDivision(QuotaRules rules, Demands demands) {
    this.rules = rules;
    this.demands = demands;
  }

  /** How long an assignment and a demand reported every {@code interval} live. */
  Duration ttl(Duration interval) {
    if (rules.assignmentTtl().isPresent()) {
      return rules.assignmentTtl().get();
    }
    Duration ttl = interval.multipliedBy(TTL_INTERVALS);
    return ttl.compareTo(MIN_TTL) < 0 ? MIN_TTL : ttl;
  }

  /** The bucket's name among the demands: the domain and the bucket id's entries, sorted. */
  static String bucketKey(String domain, BucketId id) {
    StringBuilder key = new StringBuilder(domain);
    new TreeMap<>(id.getBucketMap())
        .forEach((k, v) -> key.append('\u0000').append(k).append('=').append(v));
    return key.toString();
  }

  /**
   * Records {@code stream}'s demand ({@code requests} over {@code interval}) for the bucket and
   * answers its assignment.
   */
  CompletionStage<BucketAction> assign(
      String domain, BucketId id, String stream, long requests, Duration interval) {
    QuotaRate rate = rules.rateFor(id.getBucketMap());
    Duration ttl = ttl(interval);
    if (rate.unlimited() || rate.requests() == 0) {
      // nothing to divide: no demand needs recording
      return CompletableFuture.completedFuture(action(id, rate, 0, ttl));
    }
    double perSecond = requests * 1e9 / interval.toNanos();
    return demands
        .report(bucketKey(domain, id), stream, perSecond, ttl)
        .thenApply(live -> action(id, rate, share(rate, live, stream), ttl));
  }

  static long share(QuotaRate rate, SortedMap<String, Double> live, String stream) {
    double perPeriod = rate.period().toNanos() / 1e9;
    double[] asked = new double[live.size()];
    int mine = -1;
    int i = 0;
    for (Map.Entry<String, Double> e : live.entrySet()) {
      if (e.getKey().equals(stream)) {
        mine = i;
      }
      asked[i++] = e.getValue() * perPeriod;
    }
    long[] shares = FairShare.divide(rate.requests(), asked);
    return mine < 0 ? 0 : shares[mine];
  }

  private static BucketAction action(BucketId id, QuotaRate rate, long share, Duration ttl) {
    return BucketAction.newBuilder()
        .setBucketId(id)
        .setQuotaAssignmentAction(QuotaAssignmentAction.newBuilder()
            .setAssignmentTimeToLive(Protos.duration(ttl))
            .setRateLimitStrategy(QuotaAssignment.strategy(rate, share)))
        .build();
  }

  /** Gives back {@code stream}'s share of the bucket: its stream closed or it left the bucket. */
  void withdraw(String domain, BucketId id, String stream) {
    demands.withdraw(bucketKey(domain, id), stream);
  }

  String describe() {
    return demands.describe();
  }

  @Override
  public void close() {
    demands.close();
  }
}
