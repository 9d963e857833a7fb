package dev.sluice.loadtest.envoy;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Server;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.protobuf.services.HealthStatusManager;
import io.grpc.stub.StreamObserver;
import java.io.IOException;

/**
 * A {@code RateLimitService} that decides nothing: every descriptor is answered {@code OK} at once,
 * on the transport's own thread. It is what grpc-java answers on this machine when the decision
 * costs nothing, so the rate-limit service's figures can be read against the transport they ride
 * on as well as against Redis. Run in a child JVM like a replica ({@link ServiceReplica#empty}):
 * {@code java -cp loadtest.jar dev.sluice.loadtest.envoy.EmptyRateLimitService PORT}.
 */
public final class EmptyRateLimitService extends RateLimitServiceGrpc.RateLimitServiceImplBase {

  private static final RateLimitResponse.DescriptorStatus OK_STATUS =
      RateLimitResponse.DescriptorStatus.newBuilder()
          .setCode(RateLimitResponse.Code.OK)
          .build();

  @Override
  public void shouldRateLimit(
      RateLimitRequest request, StreamObserver<RateLimitResponse> responseObserver) {
    RateLimitResponse.Builder answer =
        RateLimitResponse.newBuilder().setOverallCode(RateLimitResponse.Code.OK);
    for (int i = 0; i < request.getDescriptorsCount(); i++) {
      answer.addStatuses(OK_STATUS);
    }
    responseObserver.onNext(answer.build());
    responseObserver.onCompleted();
  }

  /**
   * Serves on {@code args[0]} (a port) until the process is stopped.
   *
   * @throws IOException when the port cannot be bound
   * @throws InterruptedException when interrupted while serving
   */
  public static void main(String[] args) throws IOException, InterruptedException {
    if (args.length != 1) {
      throw new IllegalArgumentException("usage: EmptyRateLimitService PORT");
    }
    HealthStatusManager health = new HealthStatusManager();
    Server server = Grpc.newServerBuilderForPort(
            Integer.parseInt(args[0]), InsecureServerCredentials.create())
        .directExecutor() // the answer needs no thread of its own: the fastest grpc-java serves
        .addService(new EmptyRateLimitService())
        .addService(health.getHealthService())
        .build()
        .start();
    health.setStatus(HealthStatusManager.SERVICE_NAME_ALL_SERVICES, ServingStatus.SERVING);
    System.out.println("an empty RateLimitService on port " + server.getPort());
    server.awaitTermination();
  }
}
