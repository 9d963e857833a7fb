package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class PacedClientConfigTest {

  @Test
  void defaultsAreTheConstants() {
    PacedClientConfig config = PacedClientConfig.ofDefaults();
    assertThat(config.pace()).isEqualTo(PacedClientConfig.DEFAULT_PACE);
    assertThat(config.maxQueue()).isEqualTo(PacedClientConfig.DEFAULT_MAX_QUEUE);
    assertThat(config.retryBudgetRatio()).isEqualTo(PacedClientConfig.DEFAULT_RETRY_BUDGET_RATIO);
    assertThat(config.throttlingK()).isZero();
  }

  @Test
  void fromCopiesEveryValue() {
    PacedClientConfig base = PacedClientConfig.custom()
        .pace(7, Duration.ofSeconds(2))
        .maxConcurrency(3)
        .maxQueue(9)
        .maxAttempts(5)
        .retryBudget(0.2, 4)
        .backoff(Duration.ofMillis(5), Duration.ofMillis(50))
        .clientSideThrottling(2, Duration.ofSeconds(30))
        .learnFromHeaders(false)
        .xRateLimitWindow(Duration.ofMinutes(1))
        .lookahead(Duration.ZERO)
        .build();
    assertThat(PacedClientConfig.from(base).build().toString()).isEqualTo(base.toString());
    assertThat(PacedClientConfig.from(base).build().xRateLimitWindow())
        .isEqualTo(Duration.ofMinutes(1));
  }

  @Test
  void badValuesAreRefusedNamingSettingAndValue() {
    PacedClientConfig.Builder b = PacedClientConfig.custom();
    assertThatThrownBy(() -> b.pace(0, Duration.ofSeconds(1)))
        .hasMessageContaining("pace permits")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> b.pace(1, Duration.ZERO))
        .hasMessageContaining("pace period")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> b.maxConcurrency(0))
        .hasMessageContaining("maxConcurrency")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> b.maxQueue(-1))
        .hasMessageContaining("maxQueue")
        .hasMessageContaining("-1");
    assertThatThrownBy(() -> b.maxAttempts(101))
        .hasMessageContaining("maxAttempts")
        .hasMessageContaining("101");
    assertThatThrownBy(() -> b.retryBudget(2, 0))
        .hasMessageContaining("ratio")
        .hasMessageContaining("2.0");
    assertThatThrownBy(() -> b.backoff(Duration.ofSeconds(2), Duration.ofSeconds(1)))
        .hasMessageContaining("backoff max");
    assertThatThrownBy(() -> b.clientSideThrottling(0.5, Duration.ofMinutes(1)))
        .hasMessageContaining("k")
        .hasMessageContaining("0.5");
    assertThatThrownBy(() -> b.lookahead(Duration.ofSeconds(2)))
        .hasMessageContaining("lookahead")
        .hasMessageContaining("PT2S");
    assertThatThrownBy(() -> PartitionLeasesConfig.custom("a{b}"))
        .hasMessageContaining("service")
        .hasMessageContaining("a{b}");
    assertThatThrownBy(() -> PartitionLeasesConfig.custom("s").partitions(0, 25))
        .hasMessageContaining("partitions")
        .hasMessageContaining("0");
    assertThatThrownBy(() -> PartitionLeasesConfig.custom("s").leaseTime(Duration.ofMillis(5)))
        .hasMessageContaining("leaseTime");
  }
}
