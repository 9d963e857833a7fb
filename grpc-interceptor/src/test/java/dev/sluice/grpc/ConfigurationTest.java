package dev.sluice.grpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The same sluice.* keys as the Javalin plugin; what this door does not support is refused by name. */
class ConfigurationTest {

  @Test
  void propertiesAndCodeDeclareLimitersOnMethodPaths() {
    try (SluiceGrpc sluice = TestServer.sluice(Map.of(
            "sluice.limiters.transcode.path", "/sluice.demo.v1.Transcoder/Transcode",
            "sluice.limiters.transcode.max-concurrency", "4",
            "sluice.limiters.reports.max-queue", "7"))
        .limiter("reports", l -> l.path("/acme.Reports/*").maxConcurrency(2))
        .build()) {
      assertThat(sluice.limiters())
          .extracting(c -> c.name() + " " + c.path().orElseThrow() + " " + c.maxConcurrency())
          .containsExactly(
              "reports /acme.Reports/* 2", "transcode /sluice.demo.v1.Transcoder/Transcode 4");
      assertThat(sluice.limiter("reports").orElseThrow().spec().maxQueue())
          .as("properties win over code")
          .isEqualTo(7);
    }
  }

  @Test
  void aBadValueNamesKeyAndValue() {
    assertThatThrownBy(() -> TestServer.sluice(Map.of(
                "sluice.limiters.work.path", "/test.Work/*",
                "sluice.limiters.work.max-concurrency", "lots"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.max-concurrency")
        .hasMessageContaining("lots");
  }

  @Test
  void anUnknownKeyIsRefusedWithTheNearestKnownOne() {
    assertThatThrownBy(() -> TestServer.sluice(Map.of(
                "sluice.limiters.work.path", "/test.Work/*",
                "sluice.limiters.work.max-concurency", "3"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.max-concurency")
        .hasMessageContaining("did you mean 'sluice.limiters.work.max-concurrency'");
  }

  @Test
  void aLimiterWithoutAPathIsRefusedByName() {
    assertThatThrownBy(() ->
            TestServer.sluice(Map.of("sluice.limiters.work.max-queue", "3")).build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.path")
        .hasMessageContaining("/package.Service/*");
  }

  @Test
  void globalScopeAndDeclaredCostsAreRefusedByName() {
    assertThatThrownBy(() -> TestServer.sluice(Map.of(
                "sluice.limiters.work.path",
                "/test.Work/*",
                "sluice.limiters.work.scope",
                "global"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope='global'");
    assertThatThrownBy(() -> TestServer.sluice(Map.of(
                "sluice.limiters.work.path", "/test.Work/*",
                "sluice.limiters.work.cost", "header:X-Cost"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.cost='header:X-Cost'");
  }

  @Test
  void disabledLimitsNothing() {
    try (SluiceGrpc sluice = TestServer.sluice(Map.of(
            "sluice.enabled", "false",
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.queue-timeout", "5s"))
        .build()) {
      assertThat(sluice.limiters()).isEmpty();
      assertThat(sluice.limiter("work")).isEmpty();
    }
  }

  @Test
  void closeStopsAdmitting() throws InterruptedException {
    SluiceGrpc sluice =
        TestServer.sluice(Map.of("sluice.limiters.work.path", "/test.Work/*")).build();
    sluice.close();
    assertThat(sluice.limiter("work").orElseThrow().snapshot().shutdown()).isTrue();
    assertThat(sluice.awaitDrained(Duration.ofSeconds(1))).isTrue();
  }
}
