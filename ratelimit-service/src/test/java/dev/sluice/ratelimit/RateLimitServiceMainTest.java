package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.rules.RulesFileException;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Start-up from a properties file: what it serves, and how a wrong setting stops it. */
class RateLimitServiceMainTest {

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));

  private Path properties(String text) throws Exception {
    return Files.writeString(dir.resolve("sluice.properties"), text);
  }

  private RateLimitServer start(Path file) throws Exception {
    return RateLimitServiceMain.start(
        new String[] {"--config", file.toString()}, Map.of(), Map.of(), time);
  }

  @Test
  void servesTheDomainsOfTheConfiguredFolder() throws Exception {
    Path limits = Files.createDirectory(dir.resolve("limits"));
    Files.writeString(limits.resolve("api.yaml"), """
        domain: api
        descriptors:
          - key: user
            rate_limit:
              unit: minute
              requests_per_unit: 1
        """);
    Path file = properties(
        "sluice.ratelimit-service.port=0\n" + "sluice.ratelimit-service.config=" + limits + "\n");
    try (RateLimitServer server = start(file)) {
      ManagedChannel channel = Grpc.newChannelBuilderForAddress(
              "127.0.0.1", server.port(), InsecureChannelCredentials.create())
          .build();
      try {
        var client = RateLimitServiceGrpc.newBlockingStub(channel);
        var request = RlsFixture.request("api", RlsFixture.descriptor("user", "u"));
        assertThat(client.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OK);
        assertThat(client.shouldRateLimit(request).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void anAdmissionsFileGetsEachWindowsAdmissionsOnceTheServiceStops() throws Exception {
    Path yaml = Files.writeString(dir.resolve("api.yaml"), """
        domain: api
        descriptors:
          - key: user
            rate_limit:
              unit: minute
              requests_per_unit: 1
        """);
    Path admissions = dir.resolve("replica.admissions");
    Path file = properties("sluice.ratelimit-service.port=0\n"
        + "sluice.ratelimit-service.config=" + yaml + "\n"
        + "sluice.ratelimit-service.admissions-file=" + admissions + "\n");
    try (RateLimitServer server = start(file)) {
      ManagedChannel channel = Grpc.newChannelBuilderForAddress(
              "127.0.0.1", server.port(), InsecureChannelCredentials.create())
          .build();
      try {
        var client = RateLimitServiceGrpc.newBlockingStub(channel);
        var request = RlsFixture.request("api", RlsFixture.descriptor("user", "u"));
        for (int i = 0; i < 3; i++) {
          client.shouldRateLimit(request);
        }
      } finally {
        channel.shutdownNow();
        channel.awaitTermination(5, TimeUnit.SECONDS);
      }
    }

    assertThat(Files.readAllLines(admissions))
        .containsExactly(RlsFixture.MIDNIGHT.getEpochSecond() + " 60 1 2 api_user_u_");
  }

  @Test
  void environmentVariablesSetThePortAndTheDescriptors() throws Exception {
    Path yaml = Files.writeString(dir.resolve("env.yaml"), "domain: env\n");
    ServiceSettings settings = ServiceSettings.load(
        new String[0],
        Map.of(
            "SLUICE_RATELIMIT_SERVICE_PORT",
            "9099",
            "SLUICE_RATELIMIT_SERVICE_CONFIG",
            yaml.toString()),
        Map.of());
    assertThat(settings.port()).isEqualTo(9099);
    assertThat(settings.config()).isEqualTo(yaml);
  }

  @Test
  void anUnknownKeyFailsNamingKeyAndFileWithTheNearestKnownKey() throws Exception {
    Path file = properties("sluice.ratelimit-service.prot=9000\n");
    assertThatThrownBy(() -> start(file)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo("sluice.ratelimit-service.prot");
      assertThat(e.source()).contains(file.toString());
      assertThat(e.getMessage()).contains("sluice.ratelimit-service.port");
    });
  }

  @Test
  void aBadPortFailsNamingKeyValueAndSource() throws Exception {
    Path file = properties(
        "sluice.ratelimit-service.port=eighty\n" + "sluice.ratelimit-service.config=" + dir + "\n");
    assertThatThrownBy(() -> start(file)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo("sluice.ratelimit-service.port");
      assertThat(e.value()).isEqualTo("eighty");
      assertThat(e.source()).contains(file.toString());
    });
  }

  @Test
  void theDescriptorsAreRequired() throws Exception {
    Path file = properties("sluice.ratelimit-service.port=0\n");
    assertThatThrownBy(() -> start(file)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo("sluice.ratelimit-service.config");
      assertThat(e.problem()).contains("required");
    });
  }

  @Test
  void aBadYamlFailsNamingFileLineAndField() throws Exception {
    Path yaml = Files.writeString(dir.resolve("bad.yaml"), """
        domain: d
        descriptors:
          - key: k
            rate_limit:
              unit: second
              requests_per_unit: many
        """);
    Path file = properties(
        "sluice.ratelimit-service.port=0\n" + "sluice.ratelimit-service.config=" + yaml + "\n");
    assertThatThrownBy(() -> start(file)).isInstanceOfSatisfying(RulesFileException.class, e -> {
      assertThat(e.source()).isEqualTo(yaml.toString());
      assertThat(e.line()).isEqualTo(6);
      assertThat(e.field()).isEqualTo("descriptors[0].rate_limit.requests_per_unit");
    });
  }

  @Test
  void aBadRedisSettingFailsNamingTheKey() throws Exception {
    Path file = properties("sluice.ratelimit-service.port=0\n"
        + "sluice.ratelimit-service.config=" + dir + "\n"
        + "sluice.redis.timeout=soon\n");
    assertThatThrownBy(() -> start(file)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo("sluice.redis.timeout");
      assertThat(e.value()).isEqualTo("soon");
    });
  }
}
