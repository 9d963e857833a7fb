package dev.sluice.concurrency.limit;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.StubControl;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The latency limit, driven sample by sample, and the peers' bugs it must not have. */
class LatencyLimitTest {

  private static final Duration TICK = LatencyLimit.DEFAULT_TICK;
  private static final long BASE = TimeUnit.MILLISECONDS.toNanos(100);

  private final StubControl control = new StubControl();

  private LatencyLimit started(int initial) {
    LatencyLimit limit =
        LatencyLimit.builder().initialLimit(initial).maxLimit(1000).build();
    limit.start(control);
    return limit;
  }

  /** One window of samples of {@code serviceNanos}, released with every permit taken, then a tick. */
  private void window(LatencyLimit limit, long serviceNanos, boolean limitReached) {
    for (int i = 0; i < LatencyLimit.MIN_WINDOW_SAMPLES; i++) {
      limit.onSample(serviceNanos, limitReached ? limit.limit() - 1 : 0);
    }
    control.time.advance(TICK);
  }

  @Test
  void growsWhileServiceTimeStaysAtItsBaselineAndTheLimitIsUsed() {
    LatencyLimit limit = started(1);

    for (int i = 0; i < 10; i++) {
      window(limit, BASE, true);
    }

    assertThat(limit.limit()).isGreaterThan(20);
    assertThat(limit.state().targetServiceMillis()).isEqualTo(150.0);
  }

  @Test
  void doesNotGrowWhileTheLimitIsNotUsed() {
    LatencyLimit limit = started(10);
    control.inFlight = 2;

    for (int i = 0; i < 20; i++) {
      window(limit, BASE, false);
    }

    assertThat(limit.limit()).isEqualTo(10);
  }

  /**
   * concurrency-limits PR#134: with the queue length added to the limit on every update, a
   * gradient of about 0.8 under a long queue grew the limit without end. Here a service whose
   * service time rises past 8 concurrent jobs, under a queue of 500, keeps its limit near the knee.
   */
  @Test
  void aLongQueueDoesNotGrowTheLimitPastTheKnee() {
    LatencyLimit limit = started(1);
    control.queued = 500;

    List<Integer> limits = new ArrayList<>();
    for (int i = 0; i < 300; i++) {
      int running = limit.limit();
      control.inFlight = running;
      window(limit, BASE * Math.max(8, running) / 8, true);
      limits.add(limit.limit());
    }

    // tolerance 1.5 puts the knee at 12; one growth step (sqrt 12) above it, rounded, is the most
    assertThat(limits.subList(50, 300)).allSatisfy(l -> assertThat(l).isBetween(6, 17));
  }

  @Test
  void aWindowWithTooFewSamplesIsCarriedOver() {
    LatencyLimit limit = started(5);
    limit.onSample(BASE, 4);

    control.time.advance(TICK.multipliedBy(5));

    assertThat(limit.state().serviceMillis()).isNaN();
    assertThat(limit.limit()).isEqualTo(5);
  }

  /**
   * concurrency-limits #176: dropped requests reported near-zero latency and dragged the estimate
   * down. Here a caller rejected, timed out or cancelled in the queue never held a permit, so it
   * is no sample at all.
   */
  @Test
  void rejectedTimedOutAndCancelledCallersAreNoSamples() {
    Limiters limiters = new Limiters();
    LatencyLimit source = LatencyLimit.builder().initialLimit(1).maxLimit(1).build();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 20, Duration.ofSeconds(1))
            // the limiter is built once and never moves to another limit: one source is enough
            .limit(LimitSpec.of("latency", (max, startAt) -> source))
            .build())
        .build();
    Permit held = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      waiters.add(limiter.acquire()); // 20 queue, 10 are rejected at once: queue full
    }
    waiters.get(0).cancel(false);
    limiters.time.advance(Duration.ofSeconds(2)); // the other 19 time out; ten ticks pass

    assertThat(limiter.snapshot().rejectedQueueTimeout()).isEqualTo(19);
    assertThat(source.state().serviceMillis()).isNaN();
    assertThat(source.exactLimit()).isEqualTo(1.0);
    held.release();
  }

  /**
   * envoy#9038: re-measuring the baseline by pinning concurrency to a minimum rejects a burst every
   * interval. Here the limit never drops on its own while service time stays at the baseline.
   */
  @Test
  void neverDropsTheLimitToRemeasureTheBaseline() {
    LatencyLimit limit = started(1);
    for (int i = 0; i < 15; i++) {
      window(limit, BASE, true);
    }
    double grown = limit.exactLimit();

    List<Double> limits = new ArrayList<>();
    for (int i = 0; i < 3000; i++) { // ten minutes of windows at the baseline, limit not reached
      window(limit, BASE, false);
      limits.add(limit.exactLimit());
    }

    assertThat(limits).allSatisfy(l -> assertThat(l).isEqualTo(grown));
  }

  @Test
  void aServiceThatBecameSlowerForGoodIsRelearntAtTheMinimumAndTheLimitGrowsAgain() {
    LatencyLimit limit = started(1);
    for (int i = 0; i < 10; i++) {
      window(limit, BASE, true);
    }

    List<Integer> limits = new ArrayList<>();
    for (int i = 0; i < 60; i++) {
      window(limit, BASE * 4, true); // a slower dependency, whatever the concurrency
      limits.add(limit.limit());
    }

    assertThat(limits).contains(1);
    assertThat(limits).allSatisfy(l -> assertThat(l).isGreaterThanOrEqualTo(1));
    assertThat(limits.get(limits.size() - 1)).isGreaterThan(10);
  }

  @Test
  void builderRejectsBadValuesNamingThem() {
    assertThatThrownBy(() -> LatencyLimit.builder().tolerance(1.0))
        .hasMessage("tolerance must be > 1 and < 100 but was 1.0");
    assertThatThrownBy(() -> LatencyLimit.builder().maxLimit(0))
        .hasMessage("maxLimit must be >= 1 but was 0");
  }

  @Test
  void aWindowsMeanServiceTimeIsShownInMilliseconds() {
    LatencyLimit limit = started(10);

    window(limit, BASE, true);

    assertThat(limit.state().serviceMillis()).isEqualTo(100.0);
  }

  @Test
  void samplesOfNoTimeAtAllAreSamples() {
    LatencyLimit limit = started(10);

    window(limit, 0, true);

    assertThat(limit.state().serviceMillis()).isEqualTo(0.0);
  }

  @Test
  void aFasterWindowPullsTheBaselineHalfwayToIt() {
    LatencyLimit limit = started(10);
    window(limit, BASE, true);

    window(limit, TimeUnit.MILLISECONDS.toNanos(60), true);

    // baseline 100 + (60 - 100) / 2 = 80 ms, times the tolerance 1.5
    assertThat(limit.state().targetServiceMillis()).isCloseTo(120.0, within(1e-9));
  }

  @Test
  void aSlowerWindowRaisesTheBaselineByTheShareOfTenMinutesSinceThePreviousWindow() {
    LatencyLimit limit = started(10);
    window(limit, BASE, true);

    window(limit, 2 * BASE, true);

    double rise = (double) TICK.toNanos() / Duration.ofMinutes(10).toNanos();
    assertThat(limit.state().targetServiceMillis())
        .isCloseTo(1.5 * (100 + 100 * rise), within(1e-9));
  }

  @Test
  void theStringShowsTheToleranceAndTheLimitBeforeAnyBaseline() {
    LatencyLimit limit =
        LatencyLimit.builder().tolerance(1.5).initialLimit(4).maxLimit(10).build();

    assertThat(limit)
        .hasToString("LatencyLimit[tolerance=1.5, limit=4, exact=4.0, baselineNanos=NaN]");
  }
}
