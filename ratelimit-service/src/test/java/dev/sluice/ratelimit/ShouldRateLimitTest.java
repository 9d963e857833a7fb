package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.headers;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UInt64Value;
import io.envoyproxy.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import io.grpc.reflection.v1.ServerReflectionGrpc;
import io.grpc.reflection.v1.ServerReflectionRequest;
import io.grpc.reflection.v1.ServerReflectionResponse;
import io.grpc.reflection.v1.ServiceResponse;
import io.grpc.stub.StreamObserver;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The service's answers beyond the README's examples, over a real port on a virtual clock. */
class ShouldRateLimitTest {

  private static final String YAML = """
      domain: api
      descriptors:
        - key: user
          rate_limit:
            unit: minute
            requests_per_unit: 5
        - key: path
          rate_limit:
            unit: hour
            requests_per_unit: 100
        - key: shadowed
          shadow_mode: true
          rate_limit:
            unit: second
            requests_per_unit: 1
      """;

  /** 30 seconds into a minute: a minute's window ends 30 s later. */
  private static final Instant HALF_MINUTE = RlsFixture.MIDNIGHT.plusSeconds(30);

  private RlsFixture rls;

  @BeforeEach
  void start() throws Exception {
    rls = new RlsFixture(YAML, HALF_MINUTE);
  }

  @AfterEach
  void stop() throws Exception {
    rls.close();
  }

  @Test
  void windowsAreAlignedToTheEpochNotToTheFirstRequest() {
    RateLimitRequest alice = request("api", descriptor("user", "alice"));
    assertThat(rls.ask(alice, 5).getOverallCode()).isEqualTo(Code.OK);
    assertThat(rls.ask(alice).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    rls.time.advance(Duration.ofSeconds(29));
    assertThat(rls.ask(alice).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    rls.time.advance(Duration.ofSeconds(1)); // the next full minute
    assertThat(rls.ask(alice).getOverallCode()).isEqualTo(Code.OK);
  }

  @Test
  void durationUntilResetCountsToTheEndOfTheUnit() {
    RateLimitResponse answer =
        rls.ask(request("api", descriptor("user", "alice"), descriptor("path", "/a")));
    assertThat(answer.getStatuses(0).getDurationUntilReset().getSeconds()).isEqualTo(30);
    assertThat(answer.getStatuses(1).getDurationUntilReset().getSeconds()).isEqualTo(3_570);
  }

  @Test
  void headersDescribeTheDescriptorWithTheLeastRemaining() {
    RateLimitResponse answer =
        rls.ask(request("api", descriptor("path", "/a"), descriptor("user", "alice")));
    assertThat(headers(answer))
        .containsExactly(
            Map.entry("RateLimit-Limit", "5"),
            Map.entry("RateLimit-Remaining", "4"),
            Map.entry("RateLimit-Reset", "30"));
  }

  @Test
  void headersDescribeTheRejectingDescriptorWhenOneIsOver() {
    rls.ask(request("api", descriptor("user", "alice")), 5);
    RateLimitResponse answer =
        rls.ask(request("api", descriptor("user", "alice"), descriptor("path", "/a")));
    assertThat(answer.getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(headers(answer)).containsEntry("RateLimit-Limit", "5");
    assertThat(headers(answer)).containsEntry("RateLimit-Remaining", "0");
  }

  @Test
  void noHeadersWhenNoLimitApplies() {
    RateLimitResponse answer = rls.ask(request("api", descriptor("unknown", "x")));
    assertThat(answer.getResponseHeadersToAddList()).isEmpty();
  }

  @Test
  void shadowModeIsAnsweredOkAndCounted() {
    RateLimitResponse answer = rls.ask(request("api", descriptor("shadowed", "x")), 3);
    assertThat(answer.getOverallCode()).isEqualTo(Code.OK);
    assertThat(answer.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(rls.server.decisions().shadowOverLimit()).isEqualTo(2);
  }

  @Test
  void aDomainNoFileConfiguresIsOkWithoutLimits() {
    RateLimitResponse answer =
        rls.ask(request("elsewhere", descriptor("user", "alice"), descriptor("path", "/a")));
    assertThat(answer.getOverallCode()).isEqualTo(Code.OK);
    assertThat(answer.getStatusesList()).hasSize(2).allSatisfy(s -> {
      assertThat(s.getCode()).isEqualTo(Code.OK);
      assertThat(s.hasCurrentLimit()).isFalse();
    });
  }

  @Test
  void hitsAddendCountsThatManyAndZeroCountsOne() {
    RateLimitRequest three =
        request("api", descriptor("user", "bob")).toBuilder().setHitsAddend(3).build();
    assertThat(rls.ask(three).getStatuses(0).getLimitRemaining()).isEqualTo(2);
    RateLimitRequest zero = three.toBuilder().setHitsAddend(0).build();
    assertThat(rls.ask(zero).getStatuses(0).getLimitRemaining()).isEqualTo(1);
  }

  @Test
  void hitsThatWouldPassTheLimitAreOver() {
    RateLimitRequest six =
        request("api", descriptor("user", "bob")).toBuilder().setHitsAddend(6).build();
    assertThat(rls.ask(six).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void aDescriptorsHitsAddendOfZeroChecksWithoutCounting() {
    rls.ask(request("api", descriptor("user", "carol")), 2);
    RateLimitDescriptor check =
        descriptor("user", "carol").toBuilder().setHitsAddend(UInt64Value.of(0)).build();
    RateLimitResponse answer = rls.ask(request("api", check), 4);
    assertThat(answer.getStatuses(0).getCode()).isEqualTo(Code.OK);
    assertThat(answer.getStatuses(0).getLimitRemaining()).isEqualTo(3);
    assertThat(
            rls.ask(request("api", descriptor("user", "carol"))).getStatuses(0).getLimitRemaining())
        .isEqualTo(2);
  }

  @Test
  void aRequestsOwnLimitOverridesTheFile() {
    RateLimitDescriptor overridden = descriptor("user", "dave").toBuilder()
        .setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder()
            .setRequestsPerUnit(2)
            .setUnit(RateLimitUnit.SECOND))
        .build();
    RateLimitResponse answer = rls.ask(request("api", overridden), 2);
    assertThat(answer.getStatuses(0).getCurrentLimit().getRequestsPerUnit()).isEqualTo(2);
    assertThat(answer.getStatuses(0).getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.SECOND);
    assertThat(rls.ask(request("api", overridden)).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
  }

  @Test
  void anEmptyDomainIsInvalidArgument() {
    assertThatThrownBy(() -> rls.ask(request("", descriptor("user", "alice"))))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("domain must not be empty");
        });
  }

  @Test
  void noDescriptorsIsInvalidArgument() {
    assertThatThrownBy(() -> rls.ask(request("api")))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("descriptor list must not be empty");
        });
  }

  @Test
  void anOverrideWithoutAKnownUnitIsInvalidArgument() {
    RateLimitDescriptor unknown = descriptor("user", "erin").toBuilder()
        .setLimit(RateLimitDescriptor.RateLimitOverride.newBuilder()
            .setRequestsPerUnit(2)
            .setUnitValue(42))
        .build();
    assertThatThrownBy(() -> rls.ask(request("api", unknown)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription())
              .contains("descriptors[0].limit.unit")
              .contains("42");
        });
  }

  @Test
  void hitsBeyondTheSignedRangeAreInvalidArgument() {
    RateLimitRequest huge = request("api", descriptor("user", "frank")).toBuilder()
        .setHitsAddend(-1) // 4294967295 on the wire
        .build();
    assertThatThrownBy(() -> rls.ask(huge))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("4294967295");
        });
  }

  @Test
  void healthIsServingOnceLoaded() {
    HealthCheckResponse overall = HealthGrpc.newBlockingStub(rls.channel)
        .check(HealthCheckRequest.newBuilder().setService("").build());
    HealthCheckResponse service = HealthGrpc.newBlockingStub(rls.channel)
        .check(HealthCheckRequest.newBuilder()
            .setService("envoy.service.ratelimit.v3.RateLimitService")
            .build());
    assertThat(overall.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
    assertThat(service.getStatus()).isEqualTo(HealthCheckResponse.ServingStatus.SERVING);
  }

  @Test
  void reflectionListsTheServices() throws Exception {
    CompletableFuture<ServerReflectionResponse> answer = new CompletableFuture<>();
    StreamObserver<ServerReflectionRequest> requests = ServerReflectionGrpc.newStub(rls.channel)
        .serverReflectionInfo(new StreamObserver<>() {
          @Override
          public void onNext(ServerReflectionResponse value) {
            answer.complete(value);
          }

          @Override
          public void onError(Throwable t) {
            answer.completeExceptionally(t);
          }

          @Override
          public void onCompleted() {}
        });
    requests.onNext(ServerReflectionRequest.newBuilder().setListServices("*").build());
    ServerReflectionResponse response = answer.get(10, TimeUnit.SECONDS);
    requests.onCompleted();
    assertThat(response.getListServicesResponse().getServiceList())
        .extracting(ServiceResponse::getName)
        .contains("envoy.service.ratelimit.v3.RateLimitService", "grpc.health.v1.Health");
  }
}
