package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The same sluice.* keys as the Javalin plugin; what this door does not support is refused by name. */
class ConfigurationTest {

  private static SluiceFilter.Builder filter(Map<String, String> properties) {
    return SluiceFilter.builder()
        .properties(SluiceProperties.builder().env(Map.of()).system(properties).build());
  }

  @Test
  void propertiesAndCodeDeclareLimitersOnPaths() {
    SluiceFilter sluice = filter(Map.of(
            "sluice.limiters.transcode.path", "/api/transcode/*",
            "sluice.limiters.transcode.max-concurrency", "4",
            "sluice.limiters.reports.max-queue", "7"))
        .limiter("reports", l -> l.path("/api/reports").maxConcurrency(2))
        .build();

    assertThat(sluice.limiters())
        .extracting(c -> c.name() + " " + c.path().orElseThrow() + " " + c.maxConcurrency())
        .containsExactly("reports /api/reports 2", "transcode /api/transcode/* 4");
    assertThat(sluice.limiter("reports").orElseThrow().spec().maxQueue())
        .as("properties win over code")
        .isEqualTo(7);
    sluice.destroy();
  }

  @Test
  void anUnknownKeyIsRefusedWithTheNearestKnownOne() {
    assertThatThrownBy(() -> filter(Map.of(
                "sluice.limiters.work.path", "/api/work",
                "sluice.limiters.work.max-concurency", "3"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.max-concurency")
        .hasMessageContaining("did you mean 'sluice.limiters.work.max-concurrency'");
  }

  @Test
  void aBadValueNamesKeyAndValue() {
    assertThatThrownBy(() -> filter(Map.of(
                "sluice.limiters.work.path", "/api/work",
                "sluice.limiters.work.max-concurrency", "lots"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.max-concurrency")
        .hasMessageContaining("lots");
  }

  @Test
  void aLimiterWithoutAPathIsRefusedByName() {
    assertThatThrownBy(
            () -> filter(Map.of("sluice.limiters.work.max-queue", "3")).build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.path");
  }

  @Test
  void aGlobalLimiterIsRefusedByName() {
    assertThatThrownBy(() -> filter(Map.of(
                "sluice.limiters.work.path", "/api/work",
                "sluice.limiters.work.scope", "global"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope")
        .hasMessageContaining("scope=local");
  }

  @Test
  void aCostOtherThanOneIsRefusedByName() {
    assertThatThrownBy(() -> filter(Map.of(
                "sluice.limiters.work.path", "/api/work",
                "sluice.limiters.work.cost", "header:X-Units"))
            .build())
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.cost");
  }

  @Test
  void aBuildThatFailsOnABadSettingRegistersNoMeter() {
    for (Map<String, String> bad : List.of(
        Map.of("sluice.limiters.work.path", "/api/work", "sluice.limiters.work.max-queue", "-1"),
        Map.of("sluice.limiters.work.path", "/api/work", "sluice.trusted-proxies", "not-a-cidr"),
        Map.of(
            "sluice.limiters.work.path",
            "/api/work",
            "sluice.limiters.work.max-concurency",
            "3"))) {
      MeterRegistry registry = new SimpleMeterRegistry();
      String key =
          bad.keySet().stream().filter(k -> !k.endsWith(".path")).findFirst().orElseThrow();

      assertThatThrownBy(() -> filter(bad).meterRegistry(registry).build())
          .as(key)
          .isInstanceOf(SluiceConfigException.class)
          .hasMessageContaining(key);
      assertThat(registry.getMeters())
          .as("meters left by a failed build (%s)", key)
          .extracting(m -> m.getId().getName())
          .noneMatch(name -> name.startsWith("sluice."));
    }
  }

  @Test
  void aBuildThatSucceedsBindsItsMetersToTheRegistry() {
    MeterRegistry registry = new SimpleMeterRegistry();
    SluiceFilter sluice = filter(Map.of("sluice.limiters.work.path", "/api/work"))
        .meterRegistry(registry)
        .build();
    try {
      assertThat(registry
              .get("sluice.concurrency.limit")
              .tag("limiter", "work")
              .gauge()
              .value())
          .isEqualTo(sluice.limiter("work").orElseThrow().snapshot().limit());
    } finally {
      sluice.destroy();
    }
  }
}
