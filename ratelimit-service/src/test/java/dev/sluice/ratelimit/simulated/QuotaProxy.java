package dev.sluice.ratelimit.simulated;

import dev.sluice.time.NanoClock;
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
import java.util.List;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A simulated proxy that behaves as Envoy's rate_limit_quota filter is documented to: one
 * long-lived {@code StreamRateLimitQuotas} stream; requests matched into buckets; each bucket
 * enforced by its active assignment until the assignment's TTL runs out, else by the configured
 * {@code no_assignment_behavior} (an expired assignment without {@code
 * expired_assignment_behavior} abandons the bucket at once, back to "no assignment"); an abandon
 * action forgets the bucket; usage reported on {@link #report()} with the time since the last one.
 * A stream that ended (the service went away) is opened again with the next report, on the next
 * address of the proxy's cluster, as Envoy's gRPC client picks another host; the assignments held
 * meanwhile stay until their TTL. Envoy itself is not installed here: this follows its API
 * documentation. The service's tests and the load test's {@code envoy-ratelimit} scenario both
 * drive the service with it. Not thread-safe: one thread drives a proxy.
 */
public final class QuotaProxy implements AutoCloseable {

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

  /** What a stream delivered, tagged with the stream it came on. */
  private record Delivery(int stream, Object what) {}

  private final NanoClock time;
  private final String domain;
  private final RateLimitStrategy noAssignment;
  private final List<Integer> ports;
  private final LinkedBlockingQueue<Delivery> answers = new LinkedBlockingQueue<>();
  private final Map<Map<String, String>, Bucket> buckets = new LinkedHashMap<>();
  private final QuotaEnforcer fallback;
  private ManagedChannel channel;
  private StreamObserver<RateLimitQuotaUsageReports> reports;
  private int portIndex;
  private int stream;
  private volatile int ended = -1;
  private long lastReport;
  private boolean domainSent;

  /** A proxy whose cluster is the one service on {@code port} of 127.0.0.1. */
  public QuotaProxy(int port, NanoClock time, String domain, RateLimitStrategy noAssignment) {
    this(List.of(port), 0, time, domain, noAssignment);
  }

  /**
   * A proxy whose cluster is the replicas on {@code ports} of 127.0.0.1; its stream opens on
   * {@code ports.get(first)} and, each time it ends, again on the next one.
   */
  public QuotaProxy(
      List<Integer> ports,
      int first,
      NanoClock time,
      String domain,
      RateLimitStrategy noAssignment) {
    if (ports.isEmpty() || first < 0 || first >= ports.size()) {
      throw new IllegalArgumentException(
          "a proxy needs a port to start on: ports " + ports + ", first " + first);
    }
    this.ports = List.copyOf(ports);
    this.portIndex = first;
    this.time = time;
    this.domain = domain;
    this.noAssignment = noAssignment;
    this.fallback = new QuotaEnforcer(noAssignment, time.nanoTime());
    this.lastReport = time.nanoTime();
    open();
  }

  private void open() {
    int port = ports.get(portIndex);
    int id = ++stream;
    domainSent = false;
    channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", port, InsecureChannelCredentials.create())
        .build();
    reports = RateLimitQuotaServiceGrpc.newStub(channel)
        .streamRateLimitQuotas(new StreamObserver<>() {
          @Override
          public void onNext(RateLimitQuotaResponse value) {
            answers.add(new Delivery(id, value));
          }

          @Override
          public void onError(Throwable t) {
            answers.add(new Delivery(id, t));
            ended = id;
          }

          @Override
          public void onCompleted() {
            answers.add(new Delivery(id, "completed"));
            ended = id;
          }
        });
  }

  /** Opens the stream again on the next address, as Envoy does on the report after it ended. */
  private void reopen() {
    channel.shutdownNow();
    portIndex = (portIndex + 1) % ports.size();
    answers.clear(); // what the ended stream delivered, its end included, is moot now
    open();
  }

  public static BucketId bucket(String... keysAndValues) {
    BucketId.Builder id = BucketId.newBuilder();
    for (int i = 0; i < keysAndValues.length; i += 2) {
      id.putBucket(keysAndValues[i], keysAndValues[i + 1]);
    }
    return id.build();
  }

  /** One request matched into {@code id}: whether the proxy lets it through. */
  public boolean request(BucketId id) {
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
  public int requests(BucketId id, int n) {
    int passed = 0;
    for (int i = 0; i < n; i++) {
      passed += request(id) ? 1 : 0;
    }
    return passed;
  }

  /** Reports every bucket's usage since the last report and applies the answer. */
  public RateLimitQuotaResponse report() {
    send();
    return applyNext();
  }

  /**
   * Sends the usage report without waiting for the answer; on a new stream first when the last
   * one ended.
   */
  public void send() {
    if (ended == stream) {
      reopen();
    }
    long now = time.nanoTime();
    RateLimitQuotaUsageReports.Builder r = RateLimitQuotaUsageReports.newBuilder();
    if (!domainSent) {
      r.setDomain(domain); // only the first report of a stream needs it
      domainSent = true;
    }
    for (Bucket b : buckets.values()) {
      long from = now - b.since < now - lastReport ? b.since : lastReport;
      long elapsed = Math.max(1, now - from);
      r.addBucketQuotaUsages(BucketQuotaUsage.newBuilder()
          .setBucketId(b.id)
          .setTimeElapsed(com.google.protobuf.Duration.newBuilder()
              .setSeconds(elapsed / 1_000_000_000L)
              .setNanos((int) (elapsed % 1_000_000_000L)))
          .setNumRequestsAllowed(b.allowed)
          .setNumRequestsDenied(b.denied));
      b.allowed = 0;
      b.denied = 0;
    }
    lastReport = now;
    reports.onNext(r.build());
  }

  /**
   * Waits (on the network, not on time) for the next answer and applies it.
   *
   * @throws IllegalStateException when the stream delivered anything else, or nothing within 10 s
   */
  public RateLimitQuotaResponse applyNext() {
    Object answer = next();
    if (!(answer instanceof RateLimitQuotaResponse response)) {
      throw new IllegalStateException("expected an answer but the stream delivered " + answer);
    }
    return apply(response);
  }

  /** Applies {@code response}'s actions to the buckets, as the filter does with an answer. */
  public RateLimitQuotaResponse apply(RateLimitQuotaResponse response) {
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
      b.expiresAt = now + QuotaEnforcer.nanos(assignment.getAssignmentTimeToLive());
    }
    return response;
  }

  /**
   * The next thing the stream delivered: a response, an error, or "completed".
   *
   * @throws IllegalStateException when nothing came within 10 s
   */
  public Object next() {
    Object answer = poll(Duration.ofSeconds(10));
    if (answer == null) {
      throw new IllegalStateException("no answer within 10 s");
    }
    return answer;
  }

  /**
   * The next thing the current stream delivered (a response, an error, or "completed"), or null
   * when nothing came within {@code timeout}.
   */
  public Object poll(Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      while (true) {
        Delivery d = answers.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        if (d == null) {
          return null;
        }
        if (d.stream() == stream) {
          return d.what();
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return null;
    }
  }

  /** The strategy the proxy enforces for {@code id} now: its active assignment, else the fallback. */
  public RateLimitStrategy enforcing(BucketId id) {
    Bucket b = buckets.get(id.getBucketMap());
    long now = time.nanoTime();
    if (b == null || b.active == null || (b.expires && now - b.expiresAt >= 0)) {
      return noAssignment;
    }
    return b.active.strategy();
  }

  /**
   * When the assignment {@code id} holds runs out, on the proxy's clock: {@link Long#MAX_VALUE}
   * for one without a TTL, {@link Long#MIN_VALUE} when it holds none.
   */
  public long expiresAt(BucketId id) {
    Bucket b = buckets.get(id.getBucketMap());
    if (b == null || b.active == null) {
      return Long.MIN_VALUE;
    }
    return b.expires ? b.expiresAt : Long.MAX_VALUE;
  }

  /** The port of the replica the current stream is open to. */
  public int port() {
    return ports.get(portIndex);
  }

  /** Whether the current stream has ended (an error, or the service completed it). */
  public boolean streamEnded() {
    return ended == stream;
  }

  /** Drops {@code id} from the proxy's memory, as Envoy does when its retention of a bucket ends. */
  public void forget(BucketId id) {
    buckets.remove(id.getBucketMap());
  }

  public boolean tracks(BucketId id) {
    return buckets.containsKey(id.getBucketMap());
  }

  /** Closes the stream as a proxy that leaves does. */
  public void leave() {
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
