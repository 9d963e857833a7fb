package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse.BucketAction;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A test proxy that behaves as Envoy's rate_limit_quota filter is documented to: one long-lived
 * {@code StreamRateLimitQuotas} stream; requests matched into buckets; each bucket enforced by its
 * active assignment until the assignment's TTL runs out, else by the configured
 * {@code no_assignment_behavior} (an expired assignment without {@code
 * expired_assignment_behavior} abandons the bucket at once, back to "no assignment"); an abandon
 * action forgets the bucket; usage reported on {@link #report()} with the time since the last one.
 * Envoy itself is not installed here: this follows its API documentation.
 */
final class QuotaProxy implements AutoCloseable {

  private static final class Bucket {
    final BucketId id;
    final long since;
    long allowed;
    long denied;
    QuotaEnforcer active;
    long expiresAt;
    boolean expires;

    Bucket(BucketId id, long since) {
      this.id = id;
      this.since = since;
    }
  }

  private final VirtualTime time;
  private final String domain;
  private final RateLimitStrategy noAssignment;
  private final ManagedChannel channel;
  private final StreamObserver<RateLimitQuotaUsageReports> reports;
  private final LinkedBlockingQueue<Object> answers = new LinkedBlockingQueue<>();
  private final Map<Map<String, String>, Bucket> buckets = new LinkedHashMap<>();
  private final QuotaEnforcer fallback;
  private long lastReport;
  private boolean domainSent;

  QuotaProxy(int port, VirtualTime time, String domain, RateLimitStrategy noAssignment) {
    this.time = time;
    this.domain = domain;
    this.noAssignment = noAssignment;
    this.fallback = new QuotaEnforcer(noAssignment, time.nanoTime());
    this.lastReport = time.nanoTime();
    this.channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", port, InsecureChannelCredentials.create())
        .build();
    this.reports = RateLimitQuotaServiceGrpc.newStub(channel)
        .streamRateLimitQuotas(new StreamObserver<>() {
          @Override
          public void onNext(RateLimitQuotaResponse value) {
            answers.add(value);
          }

          @Override
          public void onError(Throwable t) {
            answers.add(t);
          }

          @Override
          public void onCompleted() {
            answers.add("completed");
          }
        });
  }

  static BucketId bucket(String... keysAndValues) {
    BucketId.Builder id = BucketId.newBuilder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      id.putBucket(keysAndValues[i], keysAndValues[i + 1]);
    }
    return id.build();
  }

  /** One request matched into {@code id}: whether the proxy lets it through. */
  boolean request(BucketId id) {
    long now = time.nanoTime();
    Bucket b = buckets.computeIfAbsent(id.getBucketMap(), k -> new Bucket(id, now));
    if (b.active != null && b.expires && now - b.expiresAt >= 0) {
      b.active = null; // expired, no expired_assignment_behavior: back to "no assignment"
    }
    boolean allowed = (b.active != null ? b.active : fallback).tryAcquire(now);
    if (allowed) {
      b.allowed++;
    } else {
      b.denied++;
    }
    return allowed;
  }

  /** {@code n} requests into {@code id}; how many passed. */
  int requests(BucketId id, int n) {
    int passed = 0;
    for (int i = 0; i < n; i++) {
      passed += request(id) ? 1 : 0;
    }
    return passed;
  }

  /** Reports every bucket's usage since the last report and applies the answer. */
  RateLimitQuotaResponse report() {
    send();
    return applyNext();
  }

  /** Sends the usage report without waiting for the answer. */
  void send() {
    long now = time.nanoTime();
    RateLimitQuotaUsageReports.Builder r = RateLimitQuotaUsageReports.newBuilder();
    if (!domainSent) {
      r.setDomain(domain); // only the first report of a stream needs it
      domainSent = true;
    }
    for (Bucket b : buckets.values()) {
      long from = now - b.since < now - lastReport ? b.since : lastReport;
      r.addBucketQuotaUsages(BucketQuotaUsage.newBuilder()
          .setBucketId(b.id)
          .setTimeElapsed(Protos.duration(Duration.ofNanos(Math.max(1, now - from))))
          .setNumRequestsAllowed(b.allowed)
          .setNumRequestsDenied(b.denied));
      b.allowed = 0;
      b.denied = 0;
    }
    lastReport = now;
    reports.onNext(r.build());
  }

  /** Waits (on the network, not on time) for the next answer and applies it. */
  RateLimitQuotaResponse applyNext() {
    Object answer = next();
    assertThat(answer).isInstanceOf(RateLimitQuotaResponse.class);
    RateLimitQuotaResponse response = (RateLimitQuotaResponse) answer;
    long now = time.nanoTime();
    for (BucketAction action : response.getBucketActionList()) {
      Map<String, String> key = action.getBucketId().getBucketMap();
      if (action.hasAbandonAction()) {
        buckets.remove(key);
        continue;
      }
      Bucket b = buckets.computeIfAbsent(key, k -> new Bucket(action.getBucketId(), now));
      var assignment = action.getQuotaAssignmentAction();
      boolean live = b.active != null && !(b.expires && now - b.expiresAt >= 0);
      if (!live || !b.active.strategy().equals(assignment.getRateLimitStrategy())) {
        b.active = new QuotaEnforcer(assignment.getRateLimitStrategy(), now);
      }
      b.expires = assignment.hasAssignmentTimeToLive();
      b.expiresAt = now + Protos.duration(assignment.getAssignmentTimeToLive()).toNanos();
    }
    return response;
  }

  /** The next thing the stream delivered: a response, an error, or "completed". */
  Object next() {
    try {
      Object answer = answers.poll(10, TimeUnit.SECONDS);
      assertThat(answer).as("an answer within 10 s").isNotNull();
      return answer;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }

  /** The strategy the proxy enforces for {@code id} now: its active assignment, else the fallback. */
  RateLimitStrategy enforcing(BucketId id) {
    Bucket b = buckets.get(id.getBucketMap());
    long now = time.nanoTime();
    if (b == null || b.active == null || (b.expires && now - b.expiresAt >= 0)) {
      return noAssignment;
    }
    return b.active.strategy();
  }

  /** Drops {@code id} from the proxy's memory, as Envoy does when its retention of a bucket ends. */
  void forget(BucketId id) {
    buckets.remove(id.getBucketMap());
  }

  boolean tracks(BucketId id) {
    return buckets.containsKey(id.getBucketMap());
  }

  /** Closes the stream as a proxy that leaves does. */
  void leave() {
    reports.onCompleted();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
