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
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;

/**
 * The gRPC server: {@code envoy.service.ratelimit.v3.RateLimitService}, {@code
 * envoy.service.rate_limit_quota.v3.RateLimitQuotaService}, {@code grpc.health.v1} ({@code SERVING}
 * for {@code ""} and for both services once the configuration is loaded) and server reflection, on
 * one port.
 */
final class RateLimitServer implements AutoCloseable {

  private static final System.Logger LOG = System.getLogger(RateLimitServer.class.getName());

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
  private ScheduledExecutorService reloads; // guarded by this

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
    return start(port, () -> config, counters, division, epochClock);
  }

  /**
   * Starts serving the descriptors {@code config} gives at each decision (a {@link
   * DescriptorReload}) and RLQS on {@code port}, as {@link #start(int, DescriptorConfig, Counters,
   * QuotaDivision, NanoClock)} does.
   *
   * @throws IOException when the port cannot be bound
   */
  static RateLimitServer start(
      int port,
      Supplier<DescriptorConfig> config,
      Counters counters,
      QuotaDivision division,
      NanoClock epochClock)
      throws IOException {
    RateLimitQuotaGrpcService quotas = new RateLimitQuotaGrpcService(division, epochClock);
    ShouldRateLimit decisions = new ShouldRateLimit(config, counters, epochClock);
    HealthStatusManager health = new HealthStatusManager();
    StreamResets.install();
    Server server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        // every handler answers without blocking (a decision writes to Redis and completes on
        // Lettuce's thread; without Redis it decides locally under short locks; RLQS reports go
        // to Redis asynchronously too): each call runs on the transport's event loop rather than
        // hopping to a thread pool and back
        .directExecutor()
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

  /**
   * Polls {@code reload} every {@code every} on a daemon thread of its own until the server
   * closes, logging each version put in force (INFO) and each refused one (WARNING, once per
   * version: the descriptors in force stay).
   */
  synchronized void reloadEvery(DescriptorReload reload, Duration every) {
    if (reloads != null || closed.get()) {
      throw new IllegalStateException("already reloading, or closed");
    }
    reloads = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ratelimit-service-reload");
      t.setDaemon(true);
      return t;
    });
    long nanos = every.toNanos();
    // a poll never throws; were one to, the schedule would stop: the future is kept for nobody
    var unused =
        reloads.scheduleWithFixedDelay(() -> log(reload), nanos, nanos, TimeUnit.NANOSECONDS);
  }

  private static void log(DescriptorReload reload) {
    DescriptorReload.Outcome outcome = reload.poll();
    if (outcome instanceof DescriptorReload.Applied applied) {
      LOG.log(
          System.Logger.Level.INFO,
          "descriptors reloaded from {0}: {1} domain(s)",
          reload.path(),
          applied.config().domains().size());
    } else if (outcome instanceof DescriptorReload.Refused refused) {
      LOG.log(
          System.Logger.Level.WARNING,
          "descriptors not reloaded, those in force stay: {0}",
          refused.reason().getMessage());
    }
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
    synchronized (this) {
      if (reloads != null) {
        reloads.shutdownNow();
      }
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
