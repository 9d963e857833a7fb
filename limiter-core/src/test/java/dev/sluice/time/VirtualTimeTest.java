package dev.sluice.time;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * The test clock's guard against time that cannot move: a task that keeps scheduling itself
 * without delay fails the advance that runs it, instead of keeping it from ever returning, while a
 * task that schedules itself a nanosecond later runs as often as the advance covers.
 */
class VirtualTimeTest {

  private final VirtualTime time = new VirtualTime();

  private void everyNanos(long delay, AtomicInteger runs) {
    time.schedule(
        () -> {
          runs.incrementAndGet();
          everyNanos(delay, runs);
        },
        delay);
  }

  @Test
  void aTaskThatKeepsSchedulingItselfWithoutDelayFailsTheAdvance() {
    AtomicInteger runs = new AtomicInteger();
    everyNanos(0, runs);

    assertThatThrownBy(() -> time.advance(Duration.ofSeconds(1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("time cannot move");
    assertThat(runs).hasValue(VirtualTime.MAX_TASKS_AT_ONE_INSTANT);
  }

  @Test
  void aTaskThatSchedulesItselfLaterRunsAsOftenAsTheAdvanceCovers() {
    AtomicInteger runs = new AtomicInteger();
    long start = time.nanoTime();
    everyNanos(1, runs);

    time.advanceNanos(2L * VirtualTime.MAX_TASKS_AT_ONE_INSTANT);

    assertThat(runs).hasValue(2 * VirtualTime.MAX_TASKS_AT_ONE_INSTANT);
    assertThat(time.nanoTime() - start).isEqualTo(2L * VirtualTime.MAX_TASKS_AT_ONE_INSTANT);
  }
}
