package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LatencyLimit;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.concurrency.limit.LimitState;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Moving a running limiter to another limit source (a reconfiguration with another limit). */
class LimitSourceSwapTest {

  private final Limiters limiters = new Limiters();

  @Test
  void aHigherNewLimitAdmitsWaitersAtOnceAndHeldPermitsCount() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 10);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> a = limiter.acquire();
    CompletableFuture<Permit> b = limiter.acquire();
    CompletableFuture<Permit> c = limiter.acquire();

    limiter.reconfigure(
        withLimit(limiter, LimitSpec.of("three", (max, startAt) -> LimitSource.fixed(3))));
    limiters.executor.runAll();

    assertThat(a).isCompleted();
    assertThat(b).isCompleted();
    assertThat(c).isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(3);
    held.release();
    limiters.executor.runAll();
    assertThat(c).isCompleted();
  }

  @Test
  void theOldSourceIsStoppedAndTheNewOneStarted() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(4, 10, Duration.ofSeconds(1))
            .limit(LimitSpec.of(
                "cpu",
                (max, startAt) ->
                    CpuLimit.builder().sampler(() -> 0.7).initialLimit(2).build()))
            .build())
        .build();
    assertThat(limiters.time.pendingTasks()).isEqualTo(1); // its controller tick

    limiter.reconfigure(withLimit(
        limiter,
        LimitSpec.of(
            "latency", (max, startAt) -> LatencyLimit.builder().initialLimit(3).build())));

    assertThat(limiters.time.pendingTasks()).isEqualTo(1); // only the new one ticks
    assertThat(limiter.snapshot().limit()).isEqualTo(3);
    assertThat(limiter.snapshot().limitState().strategy()).isEqualTo("latency");
  }

  @Test
  void theSnapshotShowsTheControllersInputs() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(4, 10, Duration.ofSeconds(1))
            .limit(LimitSpec.of(
                "cpu",
                (max, startAt) -> CpuLimit.builder()
                    .targetCpu(0.6)
                    .sampler(() -> 0.3)
                    .initialLimit(2)
                    .build()))
            .build())
        .build();

    limiters.time.advance(CpuLimit.DEFAULT_TICK);

    LimitState state = limiter.snapshot().limitState();
    assertThat(state.strategy()).isEqualTo("cpu");
    assertThat(state.cpu()).isEqualTo(0.3);
    assertThat(state.targetCpu()).isEqualTo(0.6);
    assertThat(state.maxLimit()).isEqualTo(CpuLimit.DEFAULT_MAX_LIMIT);
  }

  @Test
  void aFixedLimitsSnapshotSaysSo() {
    ConcurrencyLimiter limiter = limiters.limiter(5, 10);

    LimitState state = limiter.snapshot().limitState();

    assertThat(state).isEqualTo(LimitState.fixed(5));
    assertThat(state.adaptive()).isFalse();
  }

  @Test
  void shutdownStopsAnAdaptiveSource() {
    List<Double> reads = new ArrayList<>();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(4, 10, Duration.ofSeconds(1))
            .limit(LimitSpec.of(
                "cpu",
                (max, startAt) -> CpuLimit.builder()
                    .sampler(() -> {
                      reads.add(0.5);
                      return 0.5;
                    })
                    .build()))
            .build())
        .build();

    limiter.shutdown();
    limiters.time.advance(Duration.ofSeconds(5));

    assertThat(reads).isEmpty();
    assertThat(limiters.time.pendingTasks()).isZero();
  }

  private static LimiterSpec withLimit(ConcurrencyLimiter limiter, LimitSpec limit) {
    return LimiterSpec.from(limiter.spec()).limit(limit).build();
  }
}
