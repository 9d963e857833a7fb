package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.rules.RulesFileException;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The descriptors read again while the service runs: a changed version is in force at the next
 * poll, one that does not parse leaves the version in force answering and is reported once, and
 * files come and go from the folder.
 */
class DescriptorReloadTest {

  private static final RateLimitRequest USER =
      RlsFixture.request("api", RlsFixture.descriptor("user", "u"));

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
  private Path limits;
  private DescriptorReload reload;
  private RateLimitServer server;
  private ManagedChannel channel;
  private RateLimitServiceGrpc.RateLimitServiceBlockingStub client;

  @BeforeEach
  void start() throws Exception {
    limits = Files.createDirectory(dir.resolve("limits"));
    write("api.yaml", perMinute("api", 1));
    reload = DescriptorReload.load(limits);
    server = RateLimitServer.start(
        0,
        reload,
        new LocalCounters(time),
        new QuotaDivision(QuotaRules.ALLOW_ALL, new LocalDemands(time)),
        time);
    channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", server.port(), InsecureChannelCredentials.create())
        .build();
    client = RateLimitServiceGrpc.newBlockingStub(channel);
  }

  @AfterEach
  void stop() throws Exception {
    channel.shutdownNow();
    channel.awaitTermination(5, TimeUnit.SECONDS);
    server.close();
  }

  private static String perMinute(String domain, int limit) {
    return "domain: " + domain + "\n"
        + "descriptors:\n"
        + "  - key: user\n"
        + "    rate_limit:\n"
        + "      unit: minute\n"
        + "      requests_per_unit: " + limit + "\n";
  }

  private void write(String file, String text) throws Exception {
    Files.writeString(limits.resolve(file), text);
  }

  private Code ask(RateLimitRequest request) {
    return client
        .withDeadlineAfter(10, TimeUnit.SECONDS)
        .shouldRateLimit(request)
        .getOverallCode();
  }

  /** How many of {@code n} requests in a row are answered OK. */
  private int admitted(int n) {
    int ok = 0;
    for (int i = 0; i < n; i++) {
      ok += ask(USER) == Code.OK ? 1 : 0;
    }
    return ok;
  }

  @Test
  void aChangedLimitIsInForceAfterTheNextPoll() throws Exception {
    assertThat(admitted(3)).isEqualTo(1);
    write("api.yaml", perMinute("api", 3));
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Applied.class);
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Unchanged.class);
    time.advance(Duration.ofMinutes(1));
    assertThat(admitted(5)).isEqualTo(3);
  }

  @Test
  void aVersionThatDoesNotParseIsReportedOnceAndTheOneInForceGoesOnAnswering() throws Exception {
    write("api.yaml", perMinute("api", 3).replace("requests_per_unit: 3", "requests_per_unit: x"));
    DescriptorReload.Outcome refused = reload.poll();
    assertThat(refused).isInstanceOfSatisfying(DescriptorReload.Refused.class, r -> {
      assertThat(r.reason().source()).isEqualTo(limits.resolve("api.yaml").toString());
      assertThat(r.reason().line()).isEqualTo(6);
      assertThat(r.reason().field()).isEqualTo("descriptors[0].rate_limit.requests_per_unit");
    });
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Unchanged.class);
    assertThat(admitted(3)).isEqualTo(1); // still one a minute
    write("api.yaml", perMinute("api", 2));
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Applied.class);
    time.advance(Duration.ofMinutes(1));
    assertThat(admitted(3)).isEqualTo(2);
  }

  @Test
  void filesComeAndGoFromTheFolder() throws Exception {
    RateLimitRequest other = RlsFixture.request("other", RlsFixture.descriptor("user", "u"));
    write("other.yml", perMinute("other", 1));
    write("notes.txt", "not read");
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Applied.class);
    assertThat(reload.get().domainNames()).containsExactly("api", "other");
    assertThat(ask(other)).isEqualTo(Code.OK);
    assertThat(ask(other)).isEqualTo(Code.OVER_LIMIT);

    Files.delete(limits.resolve("other.yml"));
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Applied.class);
    assertThat(reload.get().domainNames()).containsExactly("api");
  }

  @Test
  void aDomainInTwoFilesIsRefusedNamingBoth() throws Exception {
    write("copy.yaml", perMinute("api", 9));
    assertThat(reload.poll()).isInstanceOfSatisfying(DescriptorReload.Refused.class, r -> {
      assertThat(r.reason().source()).isEqualTo(limits.resolve("copy.yaml").toString());
      assertThat(r.reason().getMessage()).contains(limits.resolve("api.yaml").toString());
    });
    assertThat(admitted(2)).isEqualTo(1);
  }

  @Test
  void anEmptiedFolderKeepsTheVersionInForceAndIsReportedAgainAfterARecovery() throws Exception {
    String text = Files.readString(limits.resolve("api.yaml"));
    Files.delete(limits.resolve("api.yaml"));
    assertThat(reload.poll())
        .isInstanceOfSatisfying(
            DescriptorReload.Refused.class,
            r -> assertThat(r.reason().getMessage()).contains("no .yaml or .yml file"));
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Unchanged.class);
    assertThat(admitted(2)).isEqualTo(1);

    write("api.yaml", text); // the same text as in force: nothing to apply
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Unchanged.class);
    Files.delete(limits.resolve("api.yaml"));
    assertThat(reload.poll()).isInstanceOf(DescriptorReload.Refused.class);
  }

  @Test
  void theServiceStartedFromItsPropertiesReadsTheFolderAgainOnItsOwn() throws Exception {
    Path properties = Files.writeString(
        dir.resolve("sluice.properties"),
        "sluice.ratelimit-service.port=0\n"
            + "sluice.ratelimit-service.config=" + limits + "\n"
            + "sluice.ratelimit-service.reload-interval=50ms\n");
    try (RateLimitServer started = RateLimitServiceMain.start(
        new String[] {"--config", properties.toString()}, Map.of(), Map.of(), time)) {
      ManagedChannel c = Grpc.newChannelBuilderForAddress(
              "127.0.0.1", started.port(), InsecureChannelCredentials.create())
          .build();
      try {
        var stub = RateLimitServiceGrpc.newBlockingStub(c);
        RateLimitRequest fresh = RlsFixture.request("fresh", RlsFixture.descriptor("user", "u"));
        assertThat(stub.shouldRateLimit(fresh).getOverallCode())
            .isEqualTo(Code.OK); // an unknown domain limits nothing
        write("fresh.yaml", perMinute("fresh", 0));
        await()
            .atMost(Duration.ofSeconds(10))
            .until(() -> stub.shouldRateLimit(fresh).getOverallCode() == Code.OVER_LIMIT);
      } finally {
        c.shutdownNow();
        c.awaitTermination(5, TimeUnit.SECONDS);
      }
    }
  }

  @Test
  void aBadIntervalNamesKeyValueAndSource() throws Exception {
    Path properties = Files.writeString(
        dir.resolve("bad.properties"),
        "sluice.ratelimit-service.port=0\n"
            + "sluice.ratelimit-service.config=" + limits + "\n"
            + "sluice.ratelimit-service.reload-interval=often\n");
    assertThatThrownBy(() -> RateLimitServiceMain.start(
            new String[] {"--config", properties.toString()}, Map.of(), Map.of(), time))
        .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
          assertThat(e.key()).isEqualTo("sluice.ratelimit-service.reload-interval");
          assertThat(e.value()).isEqualTo("often");
          assertThat(e.source()).contains(properties.toString());
        });
  }

  @Test
  void aFileThatDoesNotParseAtStartStillStopsTheStart() throws Exception {
    write("api.yaml", "domain: api\ndescriptors: 7\n");
    assertThatThrownBy(() -> DescriptorReload.load(limits)).isInstanceOf(RulesFileException.class);
  }
}
