package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class OpenLoopDispatcherTest {

  private final VirtualLoadClock clock = new VirtualLoadClock();

  private static ArrivalPlan plan() {
    return ArrivalPlan.generate(
        List.of(TrafficStream.constant("a", "GET", r -> "/a", 1, i -> Map.of(), 100)),
        Duration.ofSeconds(5),
        11);
  }

  @Test
  void sendsEveryArrivalAtItsIntendedTimeThoughNoResponseEverComes() {
    ArrivalPlan plan = plan();
    List<long[]> sends = new ArrayList<>(); // {intended, clock at send}
    OpenLoopDispatcher dispatcher = new OpenLoopDispatcher(
        plan, clock, (arrival, intended) -> sends.add(new long[] {intended, clock.nanoTime()}));
    CompletableFuture<Void> done = dispatcher.start();

    clock.time.advance(Duration.ofSeconds(5));

    assertThat(done).isCompleted();
    assertThat(sends).hasSize(plan.size());
    for (int i = 0; i < sends.size(); i++) {
      long intended = sends.get(i)[0];
      assertThat(intended - dispatcher.startNanos())
          .isEqualTo(plan.arrivals().get(i).offsetNanos());
      assertThat(sends.get(i)[1]).isEqualTo(intended);
    }
  }

  @Test
  // the wrapped transport records each answer; the test asserts on that record
  @SuppressWarnings("FutureReturnValueIgnored")
  void aLateTimerSendsTheBacklogAtOnceAndKeepsTheIntendedTimes() {
    ArrivalPlan plan = plan();
    long lag = Duration.ofMillis(300).toNanos();
    // a timer that always fires 300 ms late, like one stalled by a GC pause
    LoadClock late = new LoadClock() {
      @Override
      public long nanoTime() {
        return clock.nanoTime();
      }

      @Override
      public void schedule(Runnable task, long delayNanos) {
        clock.schedule(task, delayNanos + lag);
      }
    };
    List<long[]> sends = new ArrayList<>();
    OpenLoopDispatcher dispatcher = new OpenLoopDispatcher(
        plan, late, (arrival, intended) -> sends.add(new long[] {intended, clock.nanoTime()}));
    dispatcher.start();

    clock.time.advance(Duration.ofSeconds(6));

    assertThat(sends).hasSize(plan.size());
    for (int i = 0; i < sends.size(); i++) {
      assertThat(sends.get(i)[0] - dispatcher.startNanos())
          .isEqualTo(plan.arrivals().get(i).offsetNanos());
      assertThat(sends.get(i)[1] - sends.get(i)[0]).isBetween(0L, lag);
    }
    // the lag was caught up in batches: fewer timer firings than arrivals (at 100/s, gaps < 300 ms)
    assertThat(sends.stream().map(s -> s[1]).distinct().count()).isLessThan(plan.size() / 2);
  }

  @Test
  void aFailingSenderFailsTheRunInsteadOfStallingIt() {
    OpenLoopDispatcher dispatcher = new OpenLoopDispatcher(plan(), clock, (arrival, intended) -> {
      throw new IllegalStateException("boom");
    });
    CompletableFuture<Void> done = dispatcher.start();
    clock.time.advance(Duration.ofSeconds(1));
    assertThat(done).isCompletedExceptionally();
  }
}
