package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice.limiters.<name>.lease-time}: a global limiter's lease time from the properties,
 * checked against the renewal's minimum, handed to the shared store with every lease asked for, and
 * changed by a reload for the leases taken after it.
 */
class LeaseTimePropertyTest {

  @TempDir
  Path dir;

  @Test
  void aBadLeaseTimeInTheSystemPropertiesFailsStartUp() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.redis.uri", "memory://lease-bad",
            "sluice.limiters.work.path", "/api/work",
            "sluice.limiters.work.scope", "global",
            "sluice.limiters.work.lease-time", "1s"))
        .build();
    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(p), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.lease-time='1s'")
        .hasMessageContaining("system property")
        .hasMessageContaining("at least 2s");
  }

  @Test
  void aGlobalLimiterFromPropertiesAsksTheStoreForLeasesOfItsLeaseTimeAndAReloadChangesIt()
      throws Exception {
    Path file = dir.resolve("sluice.properties");
    Files.writeString(file, props("7s"));
    SluiceProperties p =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(p),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("done")))) {
      ConcurrencyLimiter limiter = server.plugin.limiter("work").orElseThrow();
      assertThat(limiter.spec().leaseTime()).isEqualTo(Duration.ofSeconds(7));
      assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      assertThat(MemoryStoreProvider.LEASE_TIMES.get("lease-time/work"))
          .isEqualTo(Duration.ofSeconds(7));

      Files.writeString(file, props("12s"));
      server.plugin.reload();

      // the same limiter, reconfigured: the next lease is asked for with the new time
      assertThat(server.plugin.limiter("work").orElseThrow()).isSameAs(limiter);
      assertThat(limiter.spec().leaseTime()).isEqualTo(Duration.ofSeconds(12));
      assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      assertThat(MemoryStoreProvider.LEASE_TIMES.get("lease-time/work"))
          .isEqualTo(Duration.ofSeconds(12));
    }
  }

  private static String props(String leaseTime) {
    return String.join(
        "\n",
        "sluice.redis.uri=memory://lease-time",
        "sluice.limiters.work.path=/api/work",
        "sluice.limiters.work.scope=global",
        "sluice.limiters.work.max-concurrency=2",
        "sluice.limiters.work.lease-time=" + leaseTime,
        "");
  }
}
