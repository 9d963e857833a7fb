package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import org.assertj.core.groups.Tuple;
import org.junit.jupiter.api.Test;

/**
 * The engine's slow path where it meets what other threads do meanwhile: a permit released between
 * the fast path's look and the lock, a limit that grew before its source said so, and the lock
 * every slow-path call takes and must give back.
 */
class EngineEdgesTest {

  private final Limiters limiters = new Limiters();

  /** The limiter's clock: runs {@link #onNextRead} once, at its next read, as another thread would. */
  private final class InterleavingClock implements NanoClock {
    private Runnable onNextRead;

    @Override
    public long nanoTime() {
      Runnable meanwhile = onNextRead;
      onNextRead = null;
      if (meanwhile != null) {
        meanwhile.run();
      }
      return limiters.time.nanoTime();
    }
  }

  /** A limit that a test raises without telling the limiter, as a source does just before it calls limitChanged. */
  private static final class QuietLimit implements LimitSource {
    private volatile int limit;
    private Control control;
    private final List<long[]> samples = new ArrayList<>();

    QuietLimit(int limit) {
      this.limit = limit;
    }

    @Override
    public int limit() {
      return limit;
    }

    @Override
    public void setLimit(int limit) {
      this.limit = limit;
      control.limitChanged();
    }

    @Override
    public void start(Control control) {
      this.control = control;
    }

    @Override
    public void onSample(long serviceNanos, int inFlight) {
      samples.add(new long[] {serviceNanos, inFlight});
    }
  }

  private ConcurrencyLimiter withSource(QuietLimit source) {
    return limiters
        .builder(Limiters.spec(4, 10, Duration.ofSeconds(10))
            .limit(LimitSpec.of("quiet", (max, startAt) -> source))
            .build())
        .build();
  }

  @Test
  void aPermitReleasedWhileACallerGoesTheSlowWayIsTakenAtOnceNotQueued() {
    InterleavingClock clock = new InterleavingClock();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 5, Duration.ofSeconds(10)).build())
        .clock(clock)
        .build();
    Permit running = admitted(limiter.acquire());

    clock.onNextRead = running::release; // after the fast path saw it taken, before the lock
    CompletableFuture<Permit> next = limiter.acquire();

    assertThat(next).as("admitted in the call, not granted later").isCompleted();
    assertThat(limiter.isShutdown()).isFalse();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    assertThat(limiter.snapshot().queued()).isZero();
    assertThat(limiter.snapshot().queuedTotal()).isZero();
    next.join().release();
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void aNewcomerGrantsTheWaitersAheadWhenTheLimitGrewBeforeItsSourceSaidSo() {
    QuietLimit source = new QuietLimit(1);
    ConcurrencyLimiter limiter = withSource(source);
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiting = limiter.acquire();

    source.limit = 2; // limitChanged has not come yet
    CompletableFuture<Permit> newcomer = limiter.acquire();
    limiters.executor.runAll();

    assertThat(waiting).isCompleted();
    assertThat(newcomer).isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(2);
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
  }

  @Test
  void theLimitSourceLearnsEachTimedPermitWithTheInFlightCountAtRelease() {
    QuietLimit source = new QuietLimit(4);
    ConcurrencyLimiter limiter = withSource(source);
    Permit instant = admitted(limiter.acquire());
    Permit slow = admitted(limiter.acquire());
    Permit other = admitted(limiter.acquire());

    instant.release(); // held for no time at all: still a sample
    limiters.time.advance(Duration.ofMillis(7));
    slow.release();

    assertThat(source.samples)
        .extracting(sample -> sample[0], sample -> sample[1])
        .containsExactly(Tuple.tuple(0L, 2L), Tuple.tuple(Duration.ofMillis(7).toNanos(), 1L));
    other.release();
  }

  @Test
  void aCostlyNewcomerWaitsBehindAHeldHeadEvenWhenItsUnitsAreFree() {
    ConcurrencyLimiter limiter = limiters.limiter(4, 10);
    Permit a = admitted(limiter.acquire());
    Permit b = admitted(limiter.acquire());
    CompletableFuture<Permit> whole = limiter.acquire(Caller.DEFAULT.withCost(4)); // held: 2 free

    CompletableFuture<Permit> pair = limiter.acquire(Caller.DEFAULT.withCost(2)); // 2 would fit

    assertThat(pair).as("no barging past the costly head").isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(2);
    a.release();
    b.release();
    limiters.executor.runAll();
    assertThat(whole).isCompleted();
    assertThat(pair).isNotDone();
  }

  @Test
  void aCostlyCallerIsRefusedAfterShutdownThoughItsUnitsAreFree() {
    ConcurrencyLimiter limiter = limiters.limiter(4, 10);
    limiter.shutdown();

    CompletableFuture<Permit> costly = limiter.acquire(Caller.DEFAULT.withCost(2));
    limiters.executor.runAll();

    assertThat(outcomeOf(costly)).isEqualTo(Outcome.SHUTDOWN);
    assertThat(limiter.snapshot().inFlight()).isZero();
  }

  @Test
  void aRefusedTryAcquireIsToldToTheListener() {
    List<String> told = new ArrayList<>();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 5, Duration.ofSeconds(10)).build())
        .listener(new ConcurrencyListener() {
          @Override
          public void onRejected(
              String name, Outcome outcome, RejectionReason reason, long waitedNanos) {
            told.add(name + " " + outcome + " " + reason + " " + waitedNanos);
          }
        })
        .build();
    admitted(limiter.acquire());

    assertThat(limiter.tryAcquire()).isEmpty();
    limiter.shutdown();
    assertThat(limiter.tryAcquire()).isEmpty();

    assertThat(told).containsExactly("test QUEUE_FULL QUEUE_FULL 0", "test SHUTDOWN SHUTDOWN 0");
  }

  @Test
  void aWaiterWithoutATimeoutIsScheduledNothing() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 5, Duration.ofSeconds(Long.MAX_VALUE)).build())
        .build();
    admitted(limiter.acquire());

    CompletableFuture<Permit> waiting = limiter.acquire();

    assertThat(waiting).isNotDone();
    assertThat(limiters.time.pendingTasks()).as("no timer that never fires").isZero();
  }

  @Test
  void aGrantedWaiterLeavesNoReCheckBehind() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 5, Duration.ofSeconds(10)).rejectEarly(true).build())
        .build();
    Permit running = admitted(limiter.acquire());
    CompletableFuture<Permit> first = limiter.acquire();
    CompletableFuture<Permit> second = limiter.acquire();
    assertThat(limiters.time.pendingTasks()).as("one first check each").isEqualTo(2);

    running.release(); // before the first check: that check is called off
    limiters.executor.runAll();
    assertThat(first).isCompleted();
    assertThat(limiters.time.pendingTasks()).isEqualTo(1);

    limiters.time.advance(Duration.ofSeconds(1)); // the second one is checked again, and again
    assertThat(second).isNotDone();
    first.join().release(); // after a re-check: the next one is called off too
    limiters.executor.runAll();

    assertThat(second).isCompleted();
    assertThat(limiters.time.pendingTasks()).isZero();
  }

  @Test
  void aReCheckCountsOnlyTheCallersThatLeftSinceTheWaiterJoined() {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 10, Duration.ofSeconds(10)).rejectEarly(true).build())
        .build();
    admitted(limiter.acquire()); // runs on: the prediction learns from how long it has run
    for (int i = 0; i < 5; i++) {
      limiter.acquire().cancel(false); // they left before the two below joined
    }
    CompletableFuture<Permit> ahead = limiter.acquire();
    CompletableFuture<Permit> shortTimeout =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofSeconds(5)));

    limiters.time.advance(Duration.ofSeconds(5));
    limiters.executor.runAll();

    // one caller still ahead of it and a service time of at least a second by now: refused
    // before its deadline, not timed out at it
    assertThat(outcomeOf(shortTimeout)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(reasonOf(shortTimeout)).isEqualTo(RejectionReason.PREDICTED_WAIT);
    assertThat(ahead).isNotDone();
  }

  @Test
  void anExecutorThatRefusesTheCompletionLeavesItToTheReleasingThread() {
    ConcurrencyLimiter limiter = limiters
        .builder(1, 5, Duration.ofSeconds(10))
        .executor(task -> {
          throw new RejectedExecutionException("shut down");
        })
        .build();
    Permit running = admitted(limiter.acquire());
    CompletableFuture<Permit> waiting = limiter.acquire();

    running.release();

    assertThat(waiting).as("completed on the releasing thread, not stranded").isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void theStringShowsTheLimitWhatRunsWhatWaitsAndShutdown() {
    ConcurrencyLimiter limiter = limiters.limiter(2, 5);
    assertThat(limiter).hasToString("ConcurrencyLimiter[test, limit=2, inFlight=0, queued=0]");
    admitted(limiter.acquire());
    admitted(limiter.acquire());
    CompletableFuture<Permit> waiting = limiter.acquire();

    assertThat(limiter).hasToString("ConcurrencyLimiter[test, limit=2, inFlight=2, queued=1]");
    limiter.shutdown();
    assertThat(limiter)
        .hasToString("ConcurrencyLimiter[test, limit=2, inFlight=2, queued=0, shut down]");
    limiters.executor.runAll();
    assertThat(waiting).isCompletedExceptionally();
  }

  /**
   * No call leaves the engine's lock held: the lock is reentrant, so a call that forgot to give it
   * back would go unnoticed on this thread and stop every other thread's slow path for good.
   */
  @Test
  void everySlowPathCallGivesTheLockBack() throws InterruptedException {
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 10, Duration.ofSeconds(10))
            .rejectEarly(true)
            .expectedServiceTime(Duration.ofMillis(10))
            .build())
        .build();
    BoundedQueueLimiter engine = (BoundedQueueLimiter) limiter;
    Permit running = admitted(limiter.acquire());

    CompletableFuture<Permit> timesOut =
        limiter.acquire(Caller.DEFAULT.withTimeout(Duration.ofSeconds(2)));
    CompletableFuture<Permit> cancelled = limiter.acquire();
    CompletableFuture<Permit> granted = limiter.acquire();
    assertLockFree(engine, "joining the queue");

    limiter.queueSnapshot();
    assertLockFree(engine, "a queue snapshot");
    limiters.time.advance(Duration.ofSeconds(1)); // re-checks of the predicted wait
    assertLockFree(engine, "a re-check");
    limiters.time.advance(Duration.ofSeconds(1));
    limiters.executor.runAll();
    assertThat(outcomeOf(timesOut)).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertLockFree(engine, "a timeout");
    cancelled.cancel(false);
    assertLockFree(engine, "a cancel");
    assertThat(limiter.awaitDrained(Duration.ZERO)).isFalse();
    assertLockFree(engine, "awaitDrained that gives up");
    running.release();
    limiters.executor.runAll();
    assertThat(granted).isCompleted();
    assertLockFree(engine, "a release to a waiter");

    CompletableFuture<Permit> queuedAtTheChange = limiter.acquire();
    LimiterSpec spec = limiter.spec();
    limiter.reconfigure(LimiterSpec.from(spec).queue(QueueSpec.prioritized()).build());
    assertLockFree(engine, "a new queue discipline");
    limiter.reconfigure(
        LimiterSpec.from(spec).queue(QueueSpec.prioritized()).maxConcurrency(2).build());
    assertLockFree(engine, "a higher limit");
    limiters.executor.runAll();
    assertThat(queuedAtTheChange).isCompleted();
    limiter.shutdown();
    assertLockFree(engine, "shutdown");
    granted.join().release();
    assertLockFree(engine, "a release");
  }

  private static Outcome outcomeOf(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
    } catch (CompletionException e) {
      return ((ConcurrencyRejectedException) e.getCause()).outcome();
    }
    throw new AssertionError("not rejected: " + future);
  }

  private static RejectionReason reasonOf(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
    } catch (CompletionException e) {
      return ((ConcurrencyRejectedException) e.getCause()).reason();
    }
    throw new AssertionError("not rejected: " + future);
  }

  private static void assertLockFree(BoundedQueueLimiter engine, String after) {
    assertThat(engine.lock.isLocked()).as("lock held after " + after).isFalse();
  }
}
