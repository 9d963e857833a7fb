package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.soak.SoakRedis;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The latency and throughput yardstick whose decision is the store's script call alone, on a real
 * redis-server: it answers only once the script has counted, and says so when it cannot.
 */
@Tag("integration")
class ScriptOnlyRateLimitServiceTest {

  @TempDir
  Path dir;

  @Test
  void eachCallCountsInRedisBeforeItIsAnsweredAndAFailedCallIsUnavailable() throws Exception {
    try (SoakRedis redis = SoakRedis.start(dir.resolve("redis.log"));
        RedisCeiling script = new RedisCeiling(redis.port())) {
      Server server = ScriptOnlyRateLimitService.serve(0, script);
      ManagedChannel channel = Grpc.newChannelBuilderForAddress(
              "127.0.0.1", server.getPort(), InsecureChannelCredentials.create())
          .build();
      try {
        RateLimitServiceGrpc.RateLimitServiceBlockingStub stub =
            RateLimitServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
          RateLimitResponse answer = stub.shouldRateLimit(RlsLoad.request("user", "u7"));
          assertThat(answer.getOverallCode()).isEqualTo(RateLimitResponse.Code.OK);
          assertThat(answer.getStatusesList())
              .singleElement()
              .extracting(RateLimitResponse.DescriptorStatus::getCode)
              .isEqualTo(RateLimitResponse.Code.OK);
        }
        // the three calls were counted by the script, on u7's counter of the current window
        String keys = redis.command("KEYS", "sluice:rate:{rls:ceiling_user_u7_*");
        assertThat(keys).as("u7's counter").isNotBlank();
        long counted = 0;
        for (String key : keys.split("\n")) {
          counted += Long.parseLong(redis.command("GET", key).trim());
        }
        assertThat(counted).isEqualTo(3);

        assertThatThrownBy(() -> stub.shouldRateLimit(
                RateLimitRequest.newBuilder().setDomain(RlsLoad.DOMAIN).build()))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT));

        redis.kill();
        assertThatThrownBy(() -> stub.shouldRateLimit(RlsLoad.request("user", "u7")))
            .isInstanceOfSatisfying(
                StatusRuntimeException.class,
                e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE));
      } finally {
        channel.shutdownNow();
        server.shutdownNow();
      }
    }
  }
}
