package dev.sluice.ratelimit;

import dev.sluice.time.NanoClock;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.protobuf.services.ProtoReflectionServiceV1;
import java.io.IOException;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The gRPC server: {@code envoy.service.ratelimit.v3.RateLimitService}, {@code
 * envoy.service.rate_limit_quota.v3.RateLimitQuotaService}, {@code grpc.health.v1} ({@code SERVING}
 * for {@code ""} and for both services once the configuration is loaded) and server reflection, on
 * one port.
 */
final class RateLimitServer implements AutoCloseable {

  /** Nanoseconds since the Unix epoch: envoy/ratelimit's windows are aligned to it. */
  static final NanoClock EPOCH_CLOCK = () -> {
    Instant now = Instant.now();
    return now.getEpochSecond() * 1_000_000_000L + now.getNano();
  };

  private final Server server;
  private final HealthStatusManager health;
  private final ShouldRateLimit decisions;
  private final Counters counters;
  private final RateLimitQuotaGrpcService quotas;
  private final QuotaDivision division;
  private final AtomicBoolean closed = new AtomicBoolean();

  private RateLimitServer(
      Server server,
      HealthStatusManager health,
      ShouldRateLimit decisions,
      Counters counters,
      RateLimitQuotaGrpcService quotas,
      QuotaDivision division) {
    this.server = server;
    this.health = health;
    this.decisions = decisions;
    this.counters = counters;
    this.quotas = quotas;
    this.division = division;
  }

  /**
   * Starts serving {@code config} on {@code port} (0: a free one), counting in {@code counters}.
   *
   * @param epochClock nanoseconds since the Unix epoch ({@link #EPOCH_CLOCK}; a virtual one in
   *     tests)
   * @throws IOException when the port cannot be bound
   */
  static RateLimitServer start(
      int port, DescriptorConfig config, Counters counters, NanoClock epochClock)
      throws IOException {
    return start(
        port,
        config,
        counters,
        new QuotaDivision(QuotaRules.ALLOW_ALL, new LocalDemands(epochClock)),
        epochClock);
  }

  /**
   * Starts serving {@code config} and RLQS on {@code port} (0: a free one), counting in {@code
   * counters} and dividing quotas by {@code division}; closing the server closes both.
   *
   * @param epochClock nanoseconds since the Unix epoch ({@link #EPOCH_CLOCK}; a virtual one in
   *     tests)
   * @throws IOException when the port cannot be bound
   */
  static RateLimitServer start(
      int port,
      DescriptorConfig config,
      Counters counters,
      QuotaDivision division,
      NanoClock epochClock)
      throws IOException {
    RateLimitQuotaGrpcService quotas = new RateLimitQuotaGrpcService(division, epochClock);
    ShouldRateLimit decisions = new ShouldRateLimit(() -> config, counters, epochClock);
    HealthStatusManager health = new HealthStatusManager();
    Server server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(new RateLimitGrpcService(decisions))
        .addService(quotas)
        .addService(health.getHealthService())
        .addService(ProtoReflectionServiceV1.newInstance())
        .build()
        .start();
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    health.setStatus(RateLimitServiceGrpc.SERVICE_NAME, ServingStatus.SERVING);
    health.setStatus(RateLimitQuotaServiceGrpc.SERVICE_NAME, ServingStatus.SERVING);
    return new RateLimitServer(server, health, decisions, counters, quotas, division);
  }

  /** The port the server listens on. */
  int port() {
    return server.getPort();
  }

  ShouldRateLimit decisions() {
    return decisions;
  }

  Counters counters() {
    return counters;
  }

  RateLimitQuotaGrpcService quotas() {
    return quotas;
  }

  /** Blocks until the server is shut down. */
  void awaitTermination() throws InterruptedException {
    server.awaitTermination();
  }

  /**
   * Answers NOT_SERVING, completes the RLQS streams, stops taking calls, lets calls under way finish
   * (5 s at most). Closing again does nothing.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    health.enterTerminalState();
    // RLQS streams never end by themselves: end them so that shutdown need not wait them out
    quotas.endAll();
    server.shutdown();
    try {
      if (!server.awaitTermination(5, TimeUnit.SECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      counters.close();
      division.close();
    }
  }
}
