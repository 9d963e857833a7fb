package dev.sluice.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.NanoClock;
import java.net.URI;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class StoreSettingsTest {

  private static final URI REDIS = URI.create("redis://127.0.0.1:6379");

  private static StoreSettings settings(Duration timeout, int nodes, Duration connectTimeout) {
    return new StoreSettings(
        REDIS, timeout, nodes, FailurePolicy.LOCAL, NanoClock.system(), connectTimeout);
  }

  @Test
  void withoutAConnectTimeoutTheDefaultSecondApplies() {
    StoreSettings s =
        new StoreSettings(REDIS, Duration.ofMillis(50), 1, FailurePolicy.LOCAL, NanoClock.system());

    assertThat(s.connectTimeout()).isEqualTo(Duration.ofSeconds(1));
    assertThat(s.connectTimeout()).isEqualTo(StoreSettings.DEFAULT_CONNECT_TIMEOUT);
  }

  @Test
  void theShortestTimeoutsAndASingleNodeAreAccepted() {
    StoreSettings s = settings(Duration.ofNanos(1), 1, Duration.ofNanos(1));

    assertThat(s.timeout()).isEqualTo(Duration.ofNanos(1));
    assertThat(s.expectedNodes()).isEqualTo(1);
  }

  @Test
  void aTimeoutOfZeroIsRefused() {
    assertThatThrownBy(() -> settings(Duration.ZERO, 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("timeout must be > 0 but was PT0S");
  }

  @Test
  void aNegativeTimeoutIsRefused() {
    assertThatThrownBy(() -> settings(Duration.ofMillis(-1), 1, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("timeout must be > 0");
  }

  @Test
  void aConnectTimeoutOfZeroIsRefused() {
    assertThatThrownBy(() -> settings(Duration.ofMillis(50), 1, Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("connectTimeout must be > 0 but was PT0S");
  }

  @Test
  void aNegativeConnectTimeoutIsRefused() {
    assertThatThrownBy(() -> settings(Duration.ofMillis(50), 1, Duration.ofMillis(-1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("connectTimeout must be > 0");
  }

  @Test
  void noNodesAreRefused() {
    assertThatThrownBy(() -> settings(Duration.ofMillis(50), 0, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("expectedNodes must be >= 1 but was 0");
  }
}
