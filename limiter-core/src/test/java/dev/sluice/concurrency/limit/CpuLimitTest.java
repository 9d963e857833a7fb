package dev.sluice.concurrency.limit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.StubControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class CpuLimitTest {

  private static final Duration TICK = CpuLimit.DEFAULT_TICK;

  private final StubControl control = new StubControl();
  private double cpu = 0.7;

  private CpuLimit started(int initial, int min, int max) {
    CpuLimit limit = CpuLimit.builder()
        .targetCpu(0.7)
        .sampler(() -> cpu)
        .initialLimit(initial)
        .minLimit(min)
        .maxLimit(max)
        .build();
    limit.start(control);
    return limit;
  }

  @Test
  void aFractionalLimitIsHeldOnAverageByDithering() {
    AdaptiveLimit limit = new AdaptiveLimit(1, 10, 1, TICK) {
      @Override
      protected double adjust(double current, LimitSource.Control c) {
        return 1.4;
      }
    };
    limit.start(control);
    List<Integer> held = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      control.time.advance(TICK);
      control.inFlight = limit.limit(); // callers wait: each permit is taken for one tick
      held.add(control.inFlight);
    }

    assertThat(held).containsOnly(1, 2);
    assertThat(held.stream().mapToInt(Integer::intValue).average().orElseThrow())
        .isCloseTo(1.4, within(0.02));
  }

  @Test
  void aJobThatOutlivesTheExtraPermitIsPaidBackBeforeItOpensAgain() {
    AdaptiveLimit limit = new AdaptiveLimit(1, 10, 1, TICK) {
      @Override
      protected double adjust(double current, LimitSource.Control c) {
        return 1.5;
      }
    };
    limit.start(control);
    control.inFlight = 1;
    control.time.advance(TICK);
    assertThat(limit.limit()).as("half a permit unused for a tick").isEqualTo(2);

    // the second job runs 10 ticks: half a permit too many each tick, 5 permit-ticks in all
    control.inFlight = 2;
    control.time.advance(TICK.multipliedBy(10));
    control.inFlight = 1;
    List<Integer> after = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      control.time.advance(TICK);
      after.add(limit.limit());
    }

    // paid back at half a permit a tick: closed for about 10 ticks, then open again
    assertThat(after.subList(0, 9)).containsOnly(1);
    assertThat(after.get(11)).isEqualTo(2);
  }

  @Test
  void growsWhileCallersQueueAndTheCpuIsUnderTarget() {
    CpuLimit limit = started(2, 1, 100);
    cpu = 0.35;
    control.inFlight = 2;
    control.queued = 10;

    control.time.advance(TICK.multipliedBy(10));

    assertThat(limit.exactLimit()).isGreaterThan(3);
    assertThat(control.limitChanges).isPositive();
  }

  @Test
  void doesNotGrowAnUnusedLimitOnAnIdleCpu() {
    CpuLimit limit = started(4, 1, 100);
    cpu = 0.05; // idle because nobody asks, not because the limit is too low
    control.inFlight = 1;
    control.queued = 0;

    control.time.advance(TICK.multipliedBy(50));

    assertThat(limit.limit()).isEqualTo(4);
  }

  @Test
  void shrinksAboveTargetEvenWhenUnused() {
    CpuLimit limit = started(20, 1, 100);
    cpu = 1.0;

    control.time.advance(TICK.multipliedBy(20));

    assertThat(limit.limit()).isLessThan(10);
  }

  @Test
  void staysWithinItsBounds() {
    CpuLimit limit = started(5, 3, 8);
    control.queued = 1;
    cpu = 0.0;
    control.time.advance(TICK.multipliedBy(100));
    assertThat(limit.limit()).isEqualTo(8);

    cpu = 1.0;
    control.time.advance(TICK.multipliedBy(200));
    assertThat(limit.limit()).isEqualTo(3);
  }

  @Test
  void aLowerCeilingAppliesAtOnce() {
    CpuLimit limit = started(50, 1, 100);

    limit.setLimit(10);

    assertThat(limit.limit()).isEqualTo(10);
    assertThat(limit.state().maxLimit()).isEqualTo(10);
  }

  @Test
  void holdsWhenTheCpuCannotBeRead() {
    CpuLimit limit = started(5, 1, 100);
    cpu = Double.NaN;
    control.queued = 5;

    control.time.advance(TICK.multipliedBy(20));

    assertThat(limit.exactLimit()).isEqualTo(5.0);
  }

  @Test
  void aThrowingSamplerDoesNotStopTheController() {
    int[] calls = {0};
    CpuLimit limit = CpuLimit.builder()
        .initialLimit(4)
        .sampler(() -> {
          if (calls[0]++ == 0) {
            throw new IllegalStateException("boom");
          }
          return 1.0;
        })
        .build();
    limit.start(control);

    try {
      control.time.advance(TICK);
    } catch (IllegalStateException expected) {
      // the scheduler's thread would log it; the next tick is scheduled anyway
    }
    control.time.advance(TICK.multipliedBy(10));

    assertThat(calls[0]).isGreaterThan(5);
    assertThat(limit.limit()).isLessThan(4);
  }

  @Test
  void stopCancelsTheController() {
    CpuLimit limit = started(4, 1, 10);
    assertThat(control.time.pendingTasks()).isEqualTo(1);

    limit.stop();

    assertThat(control.time.pendingTasks()).isZero();
  }

  @Test
  void stateShowsTheMeasuredCpuAndTheTarget() {
    CpuLimit limit = started(4, 1, 10);
    cpu = 0.5;

    control.time.advance(TICK);

    LimitState state = limit.state();
    assertThat(state.strategy()).isEqualTo("cpu");
    assertThat(state.adaptive()).isTrue();
    assertThat(state.cpu()).isEqualTo(0.5);
    assertThat(state.targetCpu()).isEqualTo(0.7);
    assertThat(state.serviceMillis()).isNaN();
  }

  @Test
  void aSourceServesOneLimiter() {
    CpuLimit limit = started(4, 1, 10);

    assertThatThrownBy(() -> limit.start(new StubControl()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("one limiter");
  }

  @Test
  void builderRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> CpuLimit.builder().targetCpu(1.0))
        .hasMessage("targetCpu must be > 0 and < 1 but was 1.0");
    assertThatThrownBy(() -> CpuLimit.builder().targetCpu(Double.NaN))
        .hasMessage("targetCpu must be > 0 and < 1 but was NaN");
    assertThatThrownBy(() -> CpuLimit.builder().minLimit(0))
        .hasMessage("minLimit must be >= 1 but was 0");
    assertThatThrownBy(() -> CpuLimit.builder().minLimit(5).maxLimit(4).build())
        .hasMessage("minLimit must be <= maxLimit but was 5 > 4");
    assertThatThrownBy(() -> CpuLimit.builder().tick(Duration.ofMillis(1)))
        .hasMessage("tick must be between 10ms and 10s but was PT0.001S");
  }

  @Test
  void samplersOfThisJvmReadAUtilisationOrNothing() {
    for (CpuSampler sampler : List.of(CpuSampler.machine(), CpuSampler.process())) {
      sampler.sample();
      double value = sampler.sample();
      assertThat(Double.isNaN(value) || (value >= 0 && value <= 1))
          .as("%s: %s", sampler, value)
          .isTrue();
    }
  }
}
