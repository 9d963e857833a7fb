package dev.sluice.loadtest.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A {@code RateLimitService} whose decision is the store's script call and nothing else: for each
 * call it sends the fixed window's script for the first descriptor's value to Redis, exactly as
 * {@link RedisCeiling} does (EVALSHA over one Lettuce connection), and answers {@code OK} on
 * Lettuce's thread once Redis has replied. No descriptor file, no rule, no fallback, no counting:
 * the least any service must do that shares its counters through Redis. Its figures are the floor
 * the rate-limit service's are read against, as {@link EmptyRateLimitService}'s are the transport's
 * alone. Run in a child JVM like a replica ({@link ServiceReplica#scriptOnly}): {@code java -cp
 * loadtest.jar dev.sluice.loadtest.envoy.ScriptOnlyRateLimitService PORT REDIS_PORT}.
 */
public final class ScriptOnlyRateLimitService
    extends RateLimitServiceGrpc.RateLimitServiceImplBase {

  private static final RateLimitResponse OK = RateLimitResponse.newBuilder()
      .setOverallCode(RateLimitResponse.Code.OK)
      .addStatuses(RateLimitResponse.DescriptorStatus.newBuilder()
          .setCode(RateLimitResponse.Code.OK)
          .build())
      .build();

  private final RedisCeiling redis;

  private ScriptOnlyRateLimitService(RedisCeiling redis) {
    this.redis = redis;
  }

  @Override
  public void shouldRateLimit(
      RateLimitRequest request, StreamObserver<RateLimitResponse> responseObserver) {
    if (request.getDescriptorsCount() == 0 || request.getDescriptors(0).getEntriesCount() == 0) {
      responseObserver.onError(Status.INVALID_ARGUMENT
          .withDescription("no descriptor entry to count")
          .asRuntimeException());
      return;
    }
    String user = request.getDescriptors(0).getEntries(0).getValue();
    // the answer is sent from the completion: nothing waits on this future
    CompletableFuture<List<Object>> unused = redis.call(user).whenComplete((reply, error) -> {
      if (error != null) {
        responseObserver.onError(
            Status.UNAVAILABLE.withDescription(error.toString()).asRuntimeException());
      } else {
        responseObserver.onNext(OK);
        responseObserver.onCompleted();
      }
    });
  }

  /** Starts serving on {@code port} (0: a free one), each decision one script call to {@code redis}. */
  static Server serve(int port, RedisCeiling redis) throws IOException {
    HealthStatusManager health = new HealthStatusManager();
    Server server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .directExecutor() // the call waits on Redis without a thread, as the replicas' do
        .addService(new ScriptOnlyRateLimitService(redis))
        .addService(health.getHealthService())
        .build()
        .start();
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    return server;
  }

  /**
   * Serves on {@code args[0]} (a port), counting in the {@code redis-server} on {@code args[1]}
   * (a port on 127.0.0.1), until the process is stopped.
   *
   * @throws IOException when the port cannot be bound
   * @throws InterruptedException when interrupted while serving
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length != 2) {
      throw new IllegalArgumentException("usage: ScriptOnlyRateLimitService PORT REDIS_PORT");
    }
    Server server = serve(Integer.parseInt(args[0]), new RedisCeiling(Integer.parseInt(args[1])));
    System.out.println(
        "a script-only RateLimitService on port " + server.getPort() + ", Redis on " + args[1]);
    server.awaitTermination();
  }
}
