package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse;
import io.grpc.health.v1.HealthGrpc;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaded jar as a user runs it ({@code java -jar ratelimit-service.jar --config FILE}): two
 * replicas on one real redis-server answer Envoy's calls from one shared limit. The limit is per
 * day, on the wall clock, so only a run across midnight UTC could see the window change.
 */
@Tag("integration")
class RunnableJarIT {

  @TempDir
  Path dir;

  private final List<Process> replicas = new ArrayList<>();
  private final List<ManagedChannel> channels = new ArrayList<>();
  private RedisServer redis;

  @AfterEach
  void stop() throws Exception {
    for (ManagedChannel channel : channels) {
      channel.shutdownNow();
      channel.awaitTermination(5, TimeUnit.SECONDS);
    }
    for (Process replica : replicas) {
      replica.destroy();
      if (!replica.waitFor(10, TimeUnit.SECONDS)) {
        replica.destroyForcibly();
      }
    }
    if (redis != null) {
      redis.close();
    }
  }

  @Test
  void twoReplicasOfTheJarShareOneLimitInRedis() throws Exception {
    redis = RedisServer.start();
    Path yaml = Files.writeString(dir.resolve("ratelimit.yaml"), """
        domain: jar
        descriptors:
          - key: user
            rate_limit:
              unit: day
              requests_per_unit: 5
        """);
    ManagedChannel first = replica(yaml);
    ManagedChannel second = replica(yaml);
    RateLimitRequest alice = RlsFixture.request("jar", RlsFixture.descriptor("user", "alice"));
    for (int i = 0; i < 3; i++) {
      assertThat(ask(first, alice)).isEqualTo(Code.OK);
    }
    for (int i = 0; i < 2; i++) {
      assertThat(ask(second, alice)).isEqualTo(Code.OK);
    }
    assertThat(ask(first, alice)).isEqualTo(Code.OVER_LIMIT);
    assertThat(ask(second, alice)).isEqualTo(Code.OVER_LIMIT);
  }

  private static Code ask(ManagedChannel channel, RateLimitRequest request) {
    return RateLimitServiceGrpc.newBlockingStub(channel)
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(request)
        .getOverallCode();
  }

  private ManagedChannel replica(Path yaml) throws IOException {
    int port = freePort();
    Path properties = Files.writeString(
        dir.resolve("replica-" + port + ".properties"),
        "sluice.ratelimit-service.port=" + port + "\n"
            + "sluice.ratelimit-service.config=" + yaml + "\n"
            + "sluice.redis.uri=" + redis.uri() + "\n"
            // a build machine's first script loads can pass a production bound of 50 ms
            + "sluice.redis.timeout=2s\n");
    replicas.add(new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            System.getProperty("ratelimit-service.jar", "target/ratelimit-service.jar"),
            "--config",
            properties.toString())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("replica-" + port + ".log").toFile())
        .start());
    ManagedChannel channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", port, InsecureChannelCredentials.create())
        .build();
    channels.add(channel);
    await("replica on port " + port + " serving")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> HealthGrpc.newBlockingStub(channel)
                .withDeadlineAfter(2, TimeUnit.SECONDS)
                .check(HealthCheckRequest.getDefaultInstance())
                .getStatus()
            == HealthCheckResponse.ServingStatus.SERVING);
    return channel;
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
