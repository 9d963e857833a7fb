package dev.sluice.ratelimit;

import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import java.util.concurrent.CompletionStage;

/**
 * {@code envoy.service.ratelimit.v3.RateLimitService}: a request that cannot be decided is {@code
 * INVALID_ARGUMENT} with the reason, never {@code INTERNAL}.
 */
final class RateLimitGrpcService extends RateLimitServiceGrpc.RateLimitServiceImplBase {

  private final ShouldRateLimit decisions;

  RateLimitGrpcService(ShouldRateLimit decisions) {
    this.decisions = decisions;
  }

  @Override
  public void shouldRateLimit(
      RateLimitRequest request, StreamObserver<RateLimitResponse> responseObserver) {
    CompletionStage<RateLimitResponse> answer;
    try {
      answer = decisions.decide(request);
    } catch (BadRequestException e) {
      responseObserver.onError(
          Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    answer.whenComplete((response, failure) -> {
      if (failure != null) {
        responseObserver.onError(Status.INTERNAL
            .withDescription("the decision failed: " + failure)
            .withCause(failure)
            .asRuntimeException());
      } else {
        responseObserver.onNext(response);
        responseObserver.onCompleted();
      }
    });
  }
}
