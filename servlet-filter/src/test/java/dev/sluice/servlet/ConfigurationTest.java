package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
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
}
