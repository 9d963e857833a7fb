package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.store.InMemoryPermitStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * {@link ConcurrencyLimiter#reconfigure}: one spec in, what was applied out, and the limiter runs
 * with the new spec. Every case runs on a local limiter and on a global one (leases in a store),
 * which must honour the same spec the same way.
 */
class ReconfigureTest {

  enum Kind {
    LOCAL,
    GLOBAL
  }

  private final VirtualTime time = new VirtualTime();
  private final InMemoryPermitStore store = new InMemoryPermitStore();
  /** A CPU signal the test sets: {@code busy} of the cores, always measurable. */
  private final FakeCpu cpu = new FakeCpu(time);

  private ConcurrencyLimiter limiter(Kind kind, LimiterSpec spec) {
    ConcurrencyLimiter.Builder b = ConcurrencyLimiter.builder("work")
        .spec(spec)
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run);
    if (kind == Kind.GLOBAL) {
      b.permitStore(store);
    }
    return b.build();
  }

  private static LimiterSpec.Builder spec(int max, int queue) {
    return LimiterSpec.custom()
        .maxConcurrency(max)
        .maxQueue(queue)
        .queueTimeout(Duration.ofSeconds(10));
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> f) {
    assertThat(f).isCompletedExceptionally();
    try {
      f.join();
      throw new AssertionError("not rejected");
    } catch (CompletionException e) {
      return (ConcurrencyRejectedException) e.getCause();
    }
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anEqualSpecChangesNothing(Kind kind) {
    LimiterSpec s = spec(2, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);

    Reconfiguration r = limiter.reconfigure(LimiterSpec.from(s).build());

    assertThat(r.changed()).isFalse();
    assertThat(limiter.spec()).isEqualTo(s);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aHigherMaxConcurrencyAdmitsWaitersAtOnceAndIsReportedAndShown(Kind kind) {
    LimiterSpec s = spec(1, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiting = limiter.acquire();
    assertThat(waiting).isNotDone();

    Reconfiguration r =
        limiter.reconfigure(LimiterSpec.from(s).maxConcurrency(2).build());

    assertThat(waiting).isCompleted();
    assertThat(r.applied()).containsExactly("maxConcurrency 1 -> 2");
    assertThat(r.needsRestart()).isEmpty();
    assertThat(limiter.snapshot().limit()).isEqualTo(2);
    assertThat(limiter.snapshot().spec().maxConcurrency()).isEqualTo(2);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aNewStrategyStartsFromTheLimitInForceAndIsWhatTheSnapshotReports(Kind kind) {
    LimiterSpec s = spec(3, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);

    LimiterSpec adaptive =
        LimiterSpec.from(s).maxConcurrency(8).limit(LimitSpec.cpu(0.7, cpu, 1)).build();
    Reconfiguration r = limiter.reconfigure(adaptive);

    assertThat(r.applied())
        .singleElement()
        .asString()
        .startsWith("limit fixed -> cpu")
        .contains("from limit 3")
        .contains("maxConcurrency 3 -> 8");
    ConcurrencySnapshot snap = limiter.snapshot();
    assertThat(snap.limit()).isEqualTo(3);
    assertThat(snap.limitState().strategy()).isEqualTo("cpu");
    assertThat(snap.limitState().maxLimit()).isEqualTo(8);
    assertThat(snap.spec()).isEqualTo(adaptive);

    // the controller runs: a busy machine brings the limit down
    cpu.busy = 1.0;
    time.advance(Duration.ofSeconds(2));
    assertThat(limiter.snapshot().limit()).isLessThan(3);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anAdaptiveLimitFromTheSpecLearnsOnBothKinds(Kind kind) {
    ConcurrencyLimiter limiter =
        limiter(kind, spec(8, 4).limit(LimitSpec.cpu(0.5, cpu, 1)).build());
    cpu.busy = 1.0;

    time.advance(Duration.ofSeconds(3));

    assertThat(limiter.snapshot().limitState().strategy()).isEqualTo("cpu");
    assertThat(limiter.snapshot().limit()).isEqualTo(1);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aNewQueueDisciplineTakesTheWaitersAndGrantsInItsOwnOrder(Kind kind) {
    LimiterSpec s = spec(1, 8).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    Permit running = admitted(limiter.acquire());
    List<String> granted = new ArrayList<>();
    for (String key : List.of("a", "a", "a", "b")) {
      limiter.acquire(Caller.of(key)).thenAccept(p -> {
        granted.add(key);
        p.release();
      });
    }

    Reconfiguration r = limiter.reconfigure(
        LimiterSpec.from(s).queue(QueueSpec.fair(FairQueueConfig.DEFAULT)).build());

    assertThat(r.applied())
        .singleElement()
        .asString()
        .startsWith("queue fifo -> fair")
        .endsWith(", 4 waiting moved");
    assertThat(limiter.snapshot().queued()).isEqualTo(4);
    running.release();
    // round robin: b is served second, not last as FIFO would have it
    assertThat(granted).containsExactly("a", "b", "a", "a");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void earlyRejectionFromTheSpecAnswersAtOnceOnBothKinds(Kind kind) {
    LimiterSpec s =
        spec(1, 10).queueTimeout(Duration.ofSeconds(1)).rejectEarly(true).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    for (int i = 0; i < 40; i++) { // teach it a service time of 500 ms
      Permit p = admitted(limiter.acquire());
      time.advance(Duration.ofMillis(500));
      p.release();
    }
    admitted(limiter.acquire());
    CompletableFuture<Permit> second = limiter.acquire();
    CompletableFuture<Permit> third = limiter.acquire();
    CompletableFuture<Permit> fourth = limiter.acquire();

    assertThat(second).isNotDone();
    assertThat(rejection(fourth).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(third.isDone() ? rejection(third).reason() : null)
        .isIn(null, RejectionReason.PREDICTED_WAIT);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void earlyRejectionCanBeTurnedOnAtRuntime(Kind kind) {
    LimiterSpec s = spec(1, 10).queueTimeout(Duration.ofSeconds(1)).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    for (int i = 0; i < 40; i++) {
      Permit p = admitted(limiter.acquire());
      time.advance(Duration.ofMillis(500));
      p.release();
    }
    admitted(limiter.acquire());
    limiter.acquire();
    limiter.acquire();
    assertThat(limiter.acquire()).isNotDone(); // off: it would wait, then time out

    Reconfiguration r =
        limiter.reconfigure(LimiterSpec.from(s).rejectEarly(true).build());

    assertThat(r.applied()).containsExactly("rejectEarly false -> true");
    assertThat(rejection(limiter.acquire()).reason()).isEqualTo(RejectionReason.PREDICTED_WAIT);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aShorterQueueTimeoutAppliesToNewcomers(Kind kind) {
    LimiterSpec s = spec(1, 10).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    admitted(limiter.acquire());
    CompletableFuture<Permit> before = limiter.acquire();

    limiter.reconfigure(LimiterSpec.from(s).queueTimeout(Duration.ofSeconds(2)).build());
    CompletableFuture<Permit> after = limiter.acquire();
    time.advance(Duration.ofSeconds(3));

    assertThat(rejection(after).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(before).isNotDone();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aShutDownLimiterReportsTheChangeAsNeedingARestartAndKeepsItsSpec(Kind kind) {
    LimiterSpec s = spec(2, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    limiter.shutdown();

    Reconfiguration r =
        limiter.reconfigure(LimiterSpec.from(s).maxConcurrency(5).build());

    assertThat(r.applied()).isEmpty();
    assertThat(r.needsRestart()).singleElement().asString().contains("shut down");
    assertThat(limiter.spec()).isEqualTo(s);
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void everyChangeIsReportedWithItsValueBeforeAndAfter(Kind kind) {
    LimiterSpec s = spec(2, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);

    Reconfiguration r = limiter.reconfigure(LimiterSpec.from(s)
        .maxQueue(6)
        .queueTimeout(Duration.ofSeconds(3))
        .queueDelayTarget(Duration.ofMillis(200))
        .expectedServiceTime(Duration.ofMillis(50))
        .leaseTime(Duration.ofSeconds(30))
        .build());

    assertThat(r.applied())
        .containsExactly(
            "maxQueue 4 -> 6",
            "queueTimeout PT10S -> PT3S",
            "queueDelayTarget off -> PT0.2S",
            "expectedServiceTime none -> PT0.05S",
            "leaseTime " + s.leaseTime() + " -> PT30S");
    assertThat(r.needsRestart()).isEmpty();
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void settingsTurnedOffAreReportedAsOffAndNone(Kind kind) {
    LimiterSpec s = spec(2, 4)
        .queueDelayTarget(Duration.ofMillis(200))
        .expectedServiceTime(Duration.ofMillis(50))
        .build();
    ConcurrencyLimiter limiter = limiter(kind, s);

    LimiterSpec.Builder next =
        LimiterSpec.from(s).queueDelayTarget(Duration.ZERO).expectedServiceTime(Duration.ZERO);
    Reconfiguration r = limiter.reconfigure(next.build());

    assertThat(r.applied())
        .containsExactly("queueDelayTarget PT0.2S -> off", "expectedServiceTime PT0.05S -> none");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void anExpectedServiceTimeGivenAfterJobsWereTimedSaysThePredictionGoesOnFromThem(Kind kind) {
    LimiterSpec s = spec(2, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    for (int i = 0; i < 4; i++) {
      Permit p = admitted(limiter.acquire());
      time.advance(Duration.ofMillis(10));
      p.release();
    }

    Reconfiguration r = limiter.reconfigure(
        LimiterSpec.from(s).expectedServiceTime(Duration.ofMillis(50)).build());

    assertThat(r.applied())
        .containsExactly("expectedServiceTime none -> PT0.05S"
            + " (jobs were timed already: the prediction goes on from them)");
  }

  @ParameterizedTest
  @EnumSource(Kind.class)
  void aShutDownLimiterGivenItsOwnSpecAgainNeedsNoRestart(Kind kind) {
    LimiterSpec s = spec(2, 4).build();
    ConcurrencyLimiter limiter = limiter(kind, s);
    limiter.shutdown();

    Reconfiguration r = limiter.reconfigure(LimiterSpec.from(s).build());

    assertThat(r.applied()).isEmpty();
    assertThat(r.needsRestart()).isEmpty();
  }

  /** A CPU signal on virtual time: {@code busy} of the machine since the last change. */
  static final class FakeCpu implements CpuSignal {
    private final VirtualTime time;
    private final long origin;
    volatile double busy;
    private double integral;
    private long last;

    FakeCpu(VirtualTime time) {
      this.time = time;
      this.origin = time.nanoTime();
      this.last = origin;
    }

    @Override
    public synchronized Reading read() {
      long now = time.nanoTime();
      integral += busy * (now - last);
      last = now;
      return new Reading(integral, now - origin);
    }
  }
}
