package dev.sluice.ratelimit;

import dev.sluice.time.NanoClock;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * One proxy's {@code StreamRateLimitQuotas} stream. Each usage report is answered with one
 * response: an assignment per reported bucket, in the report's order, then an abandon action for
 * each bucket this stream has not reported for longer than its assignment's TTL (the proxy is no
 * longer interested; its share has gone back to the others). A closed stream gives back the shares
 * of all its buckets.
 *
 * <p>Reports are handled one after another (each waits for the previous one's answer), so the
 * responses go out in the order of the reports and never from two threads at once, as a gRPC
 * {@code StreamObserver} requires.
 */
final class QuotaStream implements StreamObserver<RateLimitQuotaUsageReports> {

  private record Tracked(BucketId id, long lastReportNanos, long ttlNanos) {}

  private final String id;
  private final QuotaDivision division;
  private final NanoClock clock;
  private final StreamObserver<RateLimitQuotaResponse> out;
  private final Consumer<QuotaStream> onEnd;

  // guarded by this
  private String domain = "";
  private final Map<String, Tracked> buckets = new LinkedHashMap<>();
  private CompletableFuture<Void> tail = CompletableFuture.completedFuture(null);
  private boolean ended;

  QuotaStream(
      String id,
      QuotaDivision division,
      NanoClock clock,
      StreamObserver<RateLimitQuotaResponse> out,
      Consumer<QuotaStream> onEnd) {
    this.id = id;
    this.division = division;
    this.clock = clock;
    this.out = out;
    this.onEnd = onEnd;
  }

  String id() {
    return id;
  }

  @Override
  public synchronized void onNext(RateLimitQuotaUsageReports reports) {
    if (ended) {
      return;
    }
    if (domain.isEmpty()) {
      domain = reports.getDomain();
    }
    String problem = problem(reports);
    if (problem != null) {
      end();
      out.onError(Status.INVALID_ARGUMENT.withDescription(problem).asRuntimeException());
      return;
    }
    tail = tail.thenCompose(ignored -> answer(reports)).exceptionally(failure -> {
      fail(failure);
      return null;
    });
  }

  private String problem(RateLimitQuotaUsageReports reports) {
    if (domain.isEmpty()) {
      return "the first report of a stream must name its domain";
    }
    if (reports.getBucketQuotaUsagesCount() == 0) {
      return "a report must carry at least one bucket_quota_usages";
    }
    for (BucketQuotaUsage usage : reports.getBucketQuotaUsagesList()) {
      if (usage.getBucketId().getBucketCount() == 0) {
        return "bucket_id must carry at least one entry";
      }
      Duration elapsed = Protos.duration(usage.getTimeElapsed());
      if (!usage.hasTimeElapsed() || elapsed.isNegative() || elapsed.isZero()) {
        return "time_elapsed must be more than 0 for bucket "
            + usage.getBucketId().getBucketMap();
      }
    }
    return null;
  }

  private CompletableFuture<Void> answer(RateLimitQuotaUsageReports reports) {
    long now = clock.nanoTime();
    List<CompletableFuture<BucketAction>> actions = new ArrayList<>();
    synchronized (this) {
      for (BucketQuotaUsage usage : reports.getBucketQuotaUsagesList()) {
        Duration interval = Protos.duration(usage.getTimeElapsed());
        String key = QuotaDivision.bucketKey(domain, usage.getBucketId());
        buckets.put(
            key, new Tracked(usage.getBucketId(), now, division.ttl(interval).toNanos()));
        long requests = saturatedSum(usage.getNumRequestsAllowed(), usage.getNumRequestsDenied());
        actions.add(division
            .assign(domain, usage.getBucketId(), id, requests, interval)
            .toCompletableFuture());
      }
      for (Iterator<Tracked> it = buckets.values().iterator(); it.hasNext(); ) {
        Tracked t = it.next();
        if (now - t.lastReportNanos() > t.ttlNanos()) {
          it.remove();
          division.withdraw(domain, t.id(), id);
          actions.add(CompletableFuture.completedFuture(BucketAction.newBuilder()
              .setBucketId(t.id())
              .setAbandonAction(BucketAction.AbandonAction.getDefaultInstance())
              .build()));
        }
      }
    }
    return CompletableFuture.allOf(actions.toArray(CompletableFuture[]::new)).thenRun(() -> {
      RateLimitQuotaResponse.Builder response = RateLimitQuotaResponse.newBuilder();
      actions.forEach(a -> response.addBucketAction(a.join()));
      synchronized (this) {
        if (!ended) {
          out.onNext(response.build());
        }
      }
    });
  }

  /** Envoy's counters are uint64: their sum, read as unsigned, capped at Long.MAX_VALUE. */
  static long saturatedSum(long allowed, long denied) {
    if (allowed < 0 || denied < 0) {
      return Long.MAX_VALUE;
    }
    long sum = allowed + denied;
    return sum < 0 ? Long.MAX_VALUE : sum;
  }

  private synchronized void fail(Throwable failure) {
    if (!ended) {
      end();
      out.onError(Status.INTERNAL
          .withDescription("the assignment failed: " + failure)
          .asRuntimeException());
    }
  }

  @Override
  public synchronized void onError(Throwable t) {
    end();
  }

  @Override
  public synchronized void onCompleted() {
    if (!ended) {
      end();
      out.onCompleted();
    }
  }

  /** Gives back every share this stream holds. */
  synchronized void end() {
    if (ended) {
      return;
    }
    ended = true;
    buckets.values().forEach(t -> division.withdraw(domain, t.id(), id));
    buckets.clear();
    onEnd.accept(this);
  }
}
