package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class CallerTest {

  private final Limiters limiters = new Limiters();

  @Test
  void callersOwnShorterTimeoutBoundsItsWait() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(10)).build();
    admitted(limiter.acquire());

    CompletableFuture<Permit> hurried =
        limiter.acquire(Caller.of("a").withTimeout(Duration.ofSeconds(1)));
    CompletableFuture<Permit> patient = limiter.acquire(Caller.of("b"));
    limiters.time.advance(Duration.ofSeconds(1));
    limiters.executor.runAll();

    assertThat(hurried).isCompletedExceptionally();
    assertThatThrownBy(hurried::join)
        .isInstanceOf(CompletionException.class)
        .cause()
        .isInstanceOfSatisfying(
            ConcurrencyRejectedException.class,
            e -> assertThat(e.outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT));
    assertThat(patient).isNotDone();
  }

  @Test
  void callersLongerTimeoutDoesNotExtendTheLimiters() {
    ConcurrencyLimiter limiter = limiters.builder(1, 5, Duration.ofSeconds(2)).build();
    admitted(limiter.acquire());

    CompletableFuture<Permit> waiter =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofHours(1)));
    limiters.time.advance(Duration.ofSeconds(2));
    limiters.executor.runAll();

    assertThat(waiter).isCompletedExceptionally();
  }

  @Test
  void missingOrBlankKeyQueuesUnderTheSharedUnknownKey() {
    assertThat(Caller.of(null).key()).isEqualTo(Caller.UNKNOWN_KEY);
    assertThat(Caller.of("  ").key()).isEqualTo(Caller.UNKNOWN_KEY);
    assertThat(Caller.of("host-7").key()).isEqualTo("host-7");
  }

  @Test
  void badCostOrTimeoutIsRefusedNamingTheValue() {
    assertThatThrownBy(() -> Caller.DEFAULT.withCost(0)).hasMessage("cost must be >= 1 but was 0");
    assertThatThrownBy(() -> Caller.DEFAULT.withTimeout(Duration.ZERO))
        .hasMessageContaining("timeout must be > 0 but was PT0S");
  }

  @Test
  void unknownOrMissingClassNamesCountAsNormal() {
    assertThat(Priority.parse(" Critical ")).isEqualTo(Priority.CRITICAL);
    assertThat(Priority.parse("sheddable")).isEqualTo(Priority.SHEDDABLE);
    assertThat(Priority.parse("urgent!!")).isEqualTo(Priority.NORMAL);
    assertThat(Priority.parse(null)).isEqualTo(Priority.NORMAL);
  }
}
