package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.VirtualTime;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** When Redis counts as down: the circuit breaker in front of every call. */
class GuardTest {

  private final VirtualTime time = new VirtualTime();
  private final CallBound bound = new CallBound(
      new StoreSettings(
          URI.create("redis://127.0.0.1:6379"),
          Duration.ofMillis(50),
          3,
          FailurePolicy.LOCAL,
          time),
      time);

  private Guard guard(FailurePolicy policy) {
    return new Guard("redis://127.0.0.1:6379", policy, 3, bound);
  }

  private final Guard guard = guard(FailurePolicy.LOCAL);

  private static void fail(Guard guard, int times, Throwable error) {
    for (int i = 0; i < times; i++) {
      assertThat(guard.tryEnter()).isTrue();
      guard.failed(System.nanoTime(), error);
    }
  }

  @Test
  void redisCountsAsUpAtFirst() {
    assertThat(guard.state()).isEqualTo(RedisState.UP);
    assertThat(guard.describe()).isEqualTo("redis://127.0.0.1:6379 (up)");
    assertThat(guard.tryEnter()).isTrue();
  }

  @Test
  void halfOfTheLastCallsFailingMeansDown() {
    fail(guard, 4, new IllegalStateException("boom"));
    assertThat(guard.state()).isEqualTo(RedisState.UP);

    fail(guard, 1, new IllegalStateException("boom"));

    assertThat(guard.state()).isEqualTo(RedisState.DOWN);
    assertThat(guard.tryEnter()).isFalse();
    assertThat(guard.describe())
        .isEqualTo("redis://127.0.0.1:6379 (down, enforced locally at 1/3 of each limit; last "
            + "error IllegalStateException: boom)");
  }

  @Test
  void answeredCallsKeepItUp() {
    AtomicInteger answers = new AtomicInteger();
    guard.onAnswer(answers::incrementAndGet);
    for (int i = 0; i < 6; i++) {
      assertThat(guard.tryEnter()).isTrue();
      guard.succeeded(System.nanoTime());
    }
    fail(guard, 5, new IllegalStateException("boom"));

    assertThat(guard.state()).isEqualTo(RedisState.UP);
    assertThat(answers).hasValue(6);
  }

  @Test
  void theDownActionsRunOncePerOutage() {
    AtomicInteger down = new AtomicInteger();
    guard.onDown(down::incrementAndGet);

    fail(guard, 5, new IllegalStateException());

    assertThat(down).hasValue(1);
    assertThat(guard.describe()).endsWith("last error IllegalStateException)");
  }

  @Test
  void theTimeoutActionsRunOnlyForTimeouts() {
    AtomicInteger timeouts = new AtomicInteger();
    guard.onTimeout(timeouts::incrementAndGet);

    guard.failed(System.nanoTime(), new RedisCommandTimeoutException("late"));
    guard.failed(System.nanoTime(), new CompletionException(new TimeoutException()));
    guard.failed(System.nanoTime(), new CompletionException(new IllegalStateException("x")));
    guard.failed(System.nanoTime(), new IllegalStateException("y"));

    assertThat(timeouts).hasValue(2);
  }

  @Test
  void theCauseOfACompletionIsReported() {
    guard.markDown(new CompletionException(new IllegalStateException("refused")));

    assertThat(guard.describe()).endsWith("last error IllegalStateException: refused)");
  }

  @Test
  void aCompletionWithoutCauseIsReportedItself() {
    guard.markDown(new CompletionException("bare", null));

    assertThat(guard.describe()).endsWith("last error CompletionException: bare)");
  }

  @Test
  void markedDownAtStartUpItIsDownAtOnce() {
    AtomicInteger down = new AtomicInteger();
    guard.onDown(down::incrementAndGet);

    guard.markDown(new IllegalStateException("not connected"));

    assertThat(guard.state()).isEqualTo(RedisState.DOWN);
    assertThat(guard.tryEnter()).isFalse();
    assertThat(down).hasValue(1);
  }

  @Test
  void aSlotMoveIsNotAnOutage() {
    fail(guard, 10, new RedisCommandExecutionException("TRYAGAIN Multiple keys request"));

    assertThat(guard.state()).isEqualTo(RedisState.UP);
  }

  @Test
  void theDescriptionSaysWhatThePolicyDoesWhileDown() {
    Guard allow = guard(FailurePolicy.ALLOW);
    Guard deny = guard(FailurePolicy.DENY);
    allow.markDown(new IllegalStateException("a"));
    deny.markDown(new IllegalStateException("d"));

    assertThat(allow.describe()).contains("(down, allowing every request; last error");
    assertThat(deny.describe()).contains("(down, denying every request; last error");
  }

  @Test
  void decisionsMadeWithoutRedisAreCounted() {
    guard.degradedDecision();
    guard.degradedDecision();

    assertThat(guard.degradedDecisions()).isEqualTo(2);
  }

  @Test
  void enteringStartsTheAllowanceAndAnswersInTimeEndIt() {
    assertThat(guard.tryEnter()).isTrue();
    time.advance(CallBound.START_ALLOWANCE);

    assertThat(bound.nanos()).isEqualTo(Duration.ofMillis(50).toNanos());
  }

  @Test
  void answersInTimeWarmTheBound() {
    for (int i = 0; i < CallBound.WARM_ANSWERS; i++) {
      guard.succeeded(System.nanoTime());
    }

    assertThat(bound.nanos()).isEqualTo(Duration.ofMillis(50).toNanos());
  }

  /** A guard whose breaker waits on the virtual time. */
  private Guard onTime() {
    return new Guard("redis://127.0.0.1:6379", FailurePolicy.LOCAL, 3, bound, time);
  }

  /** Down, then back after three answered probes. */
  private void outage(Guard guard) {
    guard.markDown(new IllegalStateException("refused"));
    time.advance(Guard.OPEN_FOR.plusMillis(1));
    for (int i = 0; i < 3; i++) {
      assertThat(guard.tryEnter()).isTrue();
      guard.succeeded(System.nanoTime());
    }
  }

  @Test
  void noCallGoesThroughUntilTheBreakerWasOpenForItsTime() {
    Guard guard = onTime();
    guard.markDown(new IllegalStateException("refused"));

    time.advance(Guard.OPEN_FOR.minusMillis(1));

    assertThat(guard.tryEnter()).isFalse();
    assertThat(guard.state()).isEqualTo(RedisState.DOWN);
  }

  @Test
  void afterItsTimeProbeCallsGoThroughAndThreeAnsweredCloseIt() {
    Guard guard = onTime();
    guard.markDown(new IllegalStateException("refused"));
    time.advance(Guard.OPEN_FOR.plusMillis(1));

    assertThat(guard.tryEnter()).isTrue();
    assertThat(guard.state()).isEqualTo(RedisState.PROBING);
    assertThat(guard.describe())
        .isEqualTo("redis://127.0.0.1:6379 (probing, enforced locally at 1/3 of each limit; last "
            + "error IllegalStateException: refused)");
    guard.succeeded(System.nanoTime());
    for (int i = 0; i < 2; i++) {
      assertThat(guard.tryEnter()).isTrue();
      guard.succeeded(System.nanoTime());
    }

    assertThat(guard.state()).isEqualTo(RedisState.UP);
  }

  @Test
  void aRedisThatComesAndGoesIsWarnedAboutOncePerQuietPeriod() {
    Guard guard = onTime();
    AtomicInteger down = new AtomicInteger();
    guard.onDown(down::incrementAndGet);
    List<String> warnings;
    try (LoggedWarnings logged = LoggedWarnings.of(RedisStores.class)) {
      outage(guard);
      outage(guard); // within the quiet period: counted, not warned about
      time.advance(Guard.QUIET_FOR);
      outage(guard);
      warnings = logged.messages();
    }

    assertThat(warnings)
        .containsExactly(
            "Redis at redis://127.0.0.1:6379 counts as down (IllegalStateException: refused): "
                + "global rules are enforced locally at 1/3 of each limit",
            "Redis at redis://127.0.0.1:6379 answers again: global rules are enforced in Redis",
            "Redis at redis://127.0.0.1:6379 counts as down (IllegalStateException: refused): "
                + "global rules are enforced locally at 1/3 of each limit; it went down 1 more "
                + "time(s) since the last warning",
            "Redis at redis://127.0.0.1:6379 answers again: global rules are enforced in Redis");
    assertThat(down).hasValue(3);
  }

  @Test
  void threadsFailingAndProbingAtOnceWarnOncePerChange() throws Exception {
    Guard guard = onTime();
    AtomicInteger down = new AtomicInteger();
    guard.onDown(down::incrementAndGet);
    int threads = 4;
    List<String> warnings;
    try (LoggedWarnings logged = LoggedWarnings.of(RedisStores.class)) {
      // every thread sees calls fail at once: the breaker opens on one of them
      inParallel(threads, () -> {
        for (int i = 0; i < 20; i++) {
          if (guard.tryEnter()) {
            guard.failed(System.nanoTime(), new IllegalStateException("refused"));
          }
        }
      });
      assertThat(guard.state()).isEqualTo(RedisState.DOWN);
      time.advance(Guard.OPEN_FOR.plusMillis(1));
      // then every thread probes at once, and the answered probes close it
      inParallel(threads, () -> {
        for (int i = 0; i < 20; i++) {
          if (guard.tryEnter()) {
            guard.succeeded(System.nanoTime());
          }
        }
      });
      warnings = logged.messages();
    }

    assertThat(guard.state()).isEqualTo(RedisState.UP);
    assertThat(warnings)
        .containsExactly(
            "Redis at redis://127.0.0.1:6379 counts as down (IllegalStateException: refused): "
                + "global rules are enforced locally at 1/3 of each limit",
            "Redis at redis://127.0.0.1:6379 answers again: global rules are enforced in Redis");
    assertThat(down).hasValue(1);
  }

  private static void inParallel(int threads, Runnable body) throws Exception {
    CyclicBarrier start = new CyclicBarrier(threads);
    ExecutorService pool = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < threads; t++) {
        done.add(pool.submit(() -> {
          start.await();
          body.run();
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get();
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
