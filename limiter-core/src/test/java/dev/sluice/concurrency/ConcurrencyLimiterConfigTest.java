package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterConfigTest {

  private final Limiters limiters = new Limiters();

  @Test
  void maxConcurrencyBelowOneIsRefusedNamingSettingAndValue() {
    assertThatThrownBy(() -> ConcurrencyLimiter.builder("x").maxConcurrency(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxConcurrency must be >= 1 but was 0");
  }

  @Test
  void negativeMaxQueueIsRefusedNamingSettingAndValue() {
    assertThatThrownBy(() -> ConcurrencyLimiter.builder("x").maxQueue(-1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("maxQueue must be >= 0 but was -1");
  }

  @Test
  void zeroOrNegativeQueueTimeoutIsRefused() {
    assertThatThrownBy(() -> ConcurrencyLimiter.builder("x").queueTimeout(Duration.ZERO))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queueTimeout must be > 0 but was PT0S");
    assertThatThrownBy(() -> ConcurrencyLimiter.builder("x").queueTimeout(Duration.ofSeconds(-1)))
        .hasMessageContaining("queueTimeout must be > 0 but was PT-1S");
  }

  @Test
  void blankNameIsRefused() {
    assertThatThrownBy(() -> ConcurrencyLimiter.builder(" "))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("name must not be blank");
  }

  @Test
  void nullCollaboratorsAreRefusedByName() {
    ConcurrencyLimiter.Builder builder = ConcurrencyLimiter.builder("x");
    assertThatThrownBy(() -> builder.clock(null)).hasMessage("clock must not be null");
    assertThatThrownBy(() -> builder.scheduler(null)).hasMessage("scheduler must not be null");
    assertThatThrownBy(() -> builder.executor(null)).hasMessage("executor must not be null");
    assertThatThrownBy(() -> builder.listener(null)).hasMessage("listener must not be null");
  }

  @Test
  void runtimeChangesAreValidatedLikeTheBuilder() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 2);
    assertThatThrownBy(() -> limiter.setMaxConcurrency(0))
        .hasMessage("maxConcurrency must be >= 1 but was 0");
    assertThatThrownBy(() -> limiter.setMaxQueue(-5))
        .hasMessage("maxQueue must be >= 0 but was -5");
    assertThat(limiter.snapshot().limit()).isEqualTo(2);
    assertThat(limiter.snapshot().maxQueue()).isEqualTo(2);
  }

  @Test
  void defaultsAreDocumentedConstants() {
    ConcurrencySnapshot snapshot =
        ConcurrencyLimiter.builder("defaults").build().snapshot();
    assertThat(snapshot.name()).isEqualTo("defaults");
    assertThat(snapshot.limit()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY);
    assertThat(snapshot.maxQueue()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_QUEUE);
    assertThat(snapshot.queueTimeout()).isEqualTo(ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT);
  }

  @Test
  void settingsReachTheLimiter() {
    ConcurrencySnapshot snapshot =
        limiters.builder(3, 7, Duration.ofMillis(1500)).build().snapshot();
    assertThat(snapshot.limit()).isEqualTo(3);
    assertThat(snapshot.maxQueue()).isEqualTo(7);
    assertThat(snapshot.queueTimeout()).isEqualTo(Duration.ofMillis(1500));
  }
}
