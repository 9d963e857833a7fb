package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.StubControl;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What every adaptive limit shares: its bounds and tick checked when built, and its ticks. */
class AdaptiveLimitTest {

  /** A strategy that moves the limit to whatever the test says at each tick. */
  private static final class SetByHand extends AdaptiveLimit {
    volatile double next;

    SetByHand(int min, int max, int initial, Duration tick) {
      super(min, max, initial, tick);
      next = initial;
    }

    @Override
    public void onSample(long serviceNanos, int inFlight) {}

    @Override
    protected double adjust(double current, Control control) {
      return next;
    }
  }

  @Test
  void aStrategyWhoseLowerBoundIsAboveItsCeilingIsRefused() {
    assertThatThrownBy(() -> new SetByHand(5, 3, 4, Duration.ofSeconds(1)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("minLimit must be <= maxLimit but was 5 > 3");
  }

  @Test
  void theShortestAndTheLongestTickAreAccepted() {
    assertThat(new SetByHand(1, 10, 5, Duration.ofMillis(10)).limit()).isEqualTo(5);
    assertThat(new SetByHand(1, 10, 5, Duration.ofSeconds(10)).limit()).isEqualTo(5);

    assertThatThrownBy(() -> new SetByHand(1, 10, 5, Duration.ofMillis(10).minusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new SetByHand(1, 10, 5, Duration.ofSeconds(10).plusNanos(1)))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theLimiterIsToldOnlyOfTicksThatChangeTheLimit() {
    SetByHand limit = new SetByHand(1, 10, 5, Duration.ofSeconds(1));
    StubControl control = new StubControl();
    limit.start(control);

    control.time.advance(Duration.ofSeconds(1));
    assertThat(control.limitChanges).isZero();
    limit.next = 7;
    control.time.advance(Duration.ofSeconds(1));

    assertThat(limit.limit()).isEqualTo(7);
    assertThat(control.limitChanges).isEqualTo(1);
  }
}
