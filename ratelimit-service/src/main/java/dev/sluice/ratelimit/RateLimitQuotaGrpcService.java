package dev.sluice.ratelimit;

import dev.sluice.time.NanoClock;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports;
import io.grpc.stub.StreamObserver;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * {@code envoy.service.rate_limit_quota.v3.RateLimitQuotaService}: one {@link QuotaStream} per
 * proxy stream. Stream ids carry a random id of this replica, so that the streams of several
 * replicas never share a field among the demands in Redis.
 */
final class RateLimitQuotaGrpcService
    extends RateLimitQuotaServiceGrpc.RateLimitQuotaServiceImplBase {

  private final QuotaDivision division;
  private final NanoClock clock;
  private final String replica = UUID.randomUUID().toString();
  private final AtomicLong streams = new AtomicLong();
  private final Set<QuotaStream> open = ConcurrentHashMap.newKeySet();

  RateLimitQuotaGrpcService(QuotaDivision division, NanoClock clock) {
    this.division = division;
    this.clock = clock;
  }

  @Override
  public StreamObserver<RateLimitQuotaUsageReports> streamRateLimitQuotas(
      StreamObserver<RateLimitQuotaResponse> responseObserver) {
    QuotaStream stream = new QuotaStream(
        replica + "/" + streams.incrementAndGet(), division, clock, responseObserver, open::remove);
    open.add(stream);
    return stream;
  }

  /** The streams open now. */
  int openStreams() {
    return open.size();
  }

  /** Completes every open stream, giving its shares back (the server is stopping). */
  void endAll() {
    open.forEach(QuotaStream::onCompleted);
  }
}
