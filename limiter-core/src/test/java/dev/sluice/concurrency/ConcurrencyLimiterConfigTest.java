package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterConfigTest {

  private final Limiters limiters = new Limiters();

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
  void theSpecIsRequiredWholeWhenBuiltAndWhenChanged() {
    assertThatThrownBy(() -> ConcurrencyLimiter.builder("x").spec(null))
        .hasMessage("spec must not be null");
    ConcurrencyLimiter limiter = limiters.limiter(2, 2);
    assertThatThrownBy(() -> limiter.reconfigure(null)).hasMessage("spec must not be null");
    assertThat(limiter.spec())
        .isEqualTo(Limiters.spec(2, 2, Duration.ofSeconds(10)).build());
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
