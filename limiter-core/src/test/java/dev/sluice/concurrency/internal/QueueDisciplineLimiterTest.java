package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Limiters;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** The limiter with the fair and the prioritized queue: key cap, displacement, observability. */
class QueueDisciplineLimiterTest {

  private final Limiters limiters = new Limiters();

  private ConcurrencyLimiter limiter(int maxQueue, QueueSpec queue) {
    return limiters
        .builder(Limiters.spec(1, maxQueue, Duration.ofSeconds(10)).queue(queue).build())
        .build();
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return (ConcurrencyRejectedException) future.handle((p, t) -> t).join();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aKeyAtItsCapIsRefusedWhileOthersStillQueue() {
    ConcurrencyLimiter limiter =
        limiter(10, QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(2).build()));
    admitted(limiter.acquire());
    limiter.acquire(Caller.of("greedy"));
    limiter.acquire(Caller.of("greedy"));

    CompletableFuture<Permit> third = limiter.acquire(Caller.of("greedy"));
    CompletableFuture<Permit> polite = limiter.acquire(Caller.of("polite"));

    ConcurrencyRejectedException rejected = rejection(third);
    assertThat(rejected.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(rejected.reason()).isEqualTo(RejectionReason.KEY_CAP);
    assertThat(rejected.retryAfterNanos()).isPositive();
    assertThat(polite).isNotDone();
    assertThat(limiter.snapshot().rejectedQueueFull()).isEqualTo(1);
    assertThat(limiter.queueSnapshot().rejectedKeyCap()).isEqualTo(1);
    assertThat(limiter.queueSnapshot().keys()).isEqualTo(2);
  }

  @Test
  void grantsGoRoundRobinAcrossKeys() {
    ConcurrencyLimiter limiter = limiter(10, QueueSpec.fair(FairQueueConfig.DEFAULT));
    Permit held = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> greedy = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      greedy.add(limiter.acquire(Caller.of("greedy")));
    }
    CompletableFuture<Permit> polite = limiter.acquire(Caller.of("polite"));

    held.release();
    limiters.executor.runAll();
    greedy.get(0).join().release();
    limiters.executor.runAll();

    assertThat(polite).as("second grant: the other key's turn").isCompleted();
    assertThat(greedy.get(1)).isNotDone();
  }

  @Test
  void aCriticalNewcomerDisplacesTheNewestSheddableWaiterAtOnce() {
    ConcurrencyLimiter limiter = limiter(2, QueueSpec.prioritized());
    admitted(limiter.acquire());
    CompletableFuture<Permit> older =
        limiter.acquire(Caller.of("a").withPriority(Priority.SHEDDABLE));
    CompletableFuture<Permit> newer =
        limiter.acquire(Caller.of("b").withPriority(Priority.SHEDDABLE));

    CompletableFuture<Permit> critical =
        limiter.acquire(Caller.of("c").withPriority(Priority.CRITICAL));
    limiters.executor.runAll();

    ConcurrencyRejectedException rejected = rejection(newer);
    assertThat(rejected.outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(rejected.reason()).isEqualTo(RejectionReason.DISPLACED);
    assertThat(older).isNotDone();
    assertThat(critical).isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(2);
    assertThat(limiters.time.pendingTasks())
        .as("the displaced waiter's timeout is called off")
        .isEqualTo(2);
    QueueSnapshot queue = limiter.queueSnapshot();
    assertThat(queue.critical()).isEqualTo(1);
    assertThat(queue.sheddable()).isEqualTo(1);
    assertThat(queue.displaced()).isEqualTo(1);
    assertThat(limiter.snapshot().rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  void aNewcomerOfTheLowestQueuedClassIsRefusedNotDisplacing() {
    ConcurrencyLimiter limiter = limiter(1, QueueSpec.prioritized());
    admitted(limiter.acquire());
    CompletableFuture<Permit> queued = limiter.acquire(Caller.DEFAULT);

    CompletableFuture<Permit> same = limiter.acquire(Caller.DEFAULT);
    CompletableFuture<Permit> lower =
        limiter.acquire(Caller.DEFAULT.withPriority(Priority.SHEDDABLE));

    assertThat(rejection(same).reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    assertThat(rejection(lower).reason()).isEqualTo(RejectionReason.QUEUE_FULL);
    assertThat(queued).isNotDone();
  }

  @Test
  void theDisplacedWaitersSlotServesTheNewcomerAndPermitsAreConserved() {
    ConcurrencyLimiter limiter = limiter(1, QueueSpec.prioritized());
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> shed =
        limiter.acquire(Caller.DEFAULT.withPriority(Priority.SHEDDABLE));
    CompletableFuture<Permit> critical =
        limiter.acquire(Caller.DEFAULT.withPriority(Priority.CRITICAL));

    held.release();
    limiters.executor.runAll();

    assertThat(shed).isCompletedExceptionally();
    assertThat(critical).isCompleted();
    critical.join().release();
    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.tryAcquire()).isPresent();
    assertThat(limiter.tryAcquire()).as("exactly one permit").isEmpty();
  }

  @Test
  void anAlreadyCancelledVictimStillFreesItsSlotAndIsAnsweredOnce() {
    ConcurrencyLimiter limiter = limiter(1, QueueSpec.prioritized());
    admitted(limiter.acquire());
    Waiter shed = (Waiter) limiter.acquire(Caller.DEFAULT.withPriority(Priority.SHEDDABLE));
    // a cancel has won the victim's fate but not yet taken it out of the queue
    assertThat(shed.decide(Outcome.CANCELLED)).isTrue();

    CompletableFuture<Permit> critical =
        limiter.acquire(Caller.DEFAULT.withPriority(Priority.CRITICAL));
    limiters.executor.runAll();

    assertThat(critical).isNotDone();
    assertThat(shed).as("the canceller answers it, not the displacement").isNotDone();
    assertThat(limiter.snapshot().queued()).isEqualTo(1);
    assertThat(limiter.queueSnapshot().displaced()).isZero();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void theListenerHearsTheReason() {
    List<RejectionReason> reasons = new ArrayList<>();
    ConcurrencyLimiter limiter = limiters
        .builder(Limiters.spec(1, 1, Duration.ofSeconds(10))
            .queue(QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(1).build())
                .withClasses())
            .build())
        .listener(new ConcurrencyListener() {
          @Override
          public void onRejected(
              String name, Outcome outcome, RejectionReason reason, long waitedNanos) {
            reasons.add(reason);
          }
        })
        .build();
    admitted(limiter.acquire());
    limiter.acquire(Caller.of("a").withPriority(Priority.SHEDDABLE));
    limiter.acquire(Caller.of("a").withPriority(Priority.SHEDDABLE));
    limiter.acquire(Caller.of("b").withPriority(Priority.CRITICAL));
    limiter.acquire(Caller.of("c"));

    assertThat(reasons)
        .containsExactly(
            RejectionReason.KEY_CAP, RejectionReason.DISPLACED, RejectionReason.QUEUE_FULL);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void anOldListenerStillHearsRejections() {
    List<Outcome> outcomes = new ArrayList<>();
    ConcurrencyLimiter limiter = limiters
        .builder(1, 0, Duration.ofSeconds(10))
        .listener(new ConcurrencyListener() {
          @Override
          public void onRejected(String name, Outcome outcome, long waitedNanos) {
            outcomes.add(outcome);
          }
        })
        .build();
    admitted(limiter.acquire());
    limiter.acquire();

    assertThat(outcomes).containsExactly(Outcome.QUEUE_FULL);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aFifoLimiterReportsEveryWaiterAsNormal() {
    ConcurrencyLimiter limiter = limiter(5, QueueSpec.fifo());
    admitted(limiter.acquire());
    limiter.acquire(Caller.DEFAULT.withPriority(Priority.CRITICAL));

    QueueSnapshot queue = limiter.queueSnapshot();
    assertThat(queue.normal()).isEqualTo(1);
    assertThat(queue.queued(Priority.CRITICAL)).isZero();
    assertThat(queue.keys()).isZero();
  }

  @Test
  void changingTheDisciplineKeepsEveryWaiterAndRegrantsInTheNewOrder() {
    ConcurrencyLimiter limiter = limiter(10, QueueSpec.fifo());
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> greedy1 = limiter.acquire(Caller.of("greedy"));
    CompletableFuture<Permit> greedy2 = limiter.acquire(Caller.of("greedy"));
    CompletableFuture<Permit> leaving = limiter.acquire(Caller.of("leaving"));
    CompletableFuture<Permit> polite = limiter.acquire(Caller.of("polite"));

    limiter.reconfigure(LimiterSpec.from(limiter.spec())
        .queue(QueueSpec.fair(FairQueueConfig.DEFAULT))
        .build());
    assertThat(limiter.snapshot().queued()).isEqualTo(4);
    assertThat(limiter.queueSnapshot().keys()).isEqualTo(3);
    leaving.cancel(false); // leaves the new queue
    assertThat(limiter.snapshot().queued()).isEqualTo(3);

    held.release();
    limiters.executor.runAll();
    greedy1.join().release();
    limiters.executor.runAll();

    assertThat(polite).as("fair now: the other key before greedy's second").isCompleted();
    assertThat(greedy2).isNotDone();
    assertThat(limiters.time.pendingTasks()).as("the waiter kept its timeout").isEqualTo(1);
  }

  @Test
  void aQueueFactoryThatHandsOverAQueueInUseIsRefused() {
    ConcurrencyLimiter limiter = limiter(10, QueueSpec.fifo());
    WaitQueue busy = WaitQueue.fifo();
    busy.add(new Waiter(null, Caller.DEFAULT, 0));

    LimiterSpec next =
        LimiterSpec.from(limiter.spec()).queue(QueueSpec.of("busy", () -> busy)).build();

    org.assertj.core.api.Assertions.assertThatThrownBy(() -> limiter.reconfigure(next))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("queue must be empty but holds 1");
  }
}
