package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.QueuedExecutor;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.store.InMemoryPermitStore;
import dev.sluice.store.PermitStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import org.junit.jupiter.api.Test;

/**
 * A global limiter where its two stages and the store's answers cross: timers called off, a lease
 * or a local permit that arrives too late, a question asked again, and what a caller is told.
 */
class GlobalLimiterEdgesTest {

  private final VirtualTime time = new VirtualTime();
  private final InMemoryPermitStore store = new InMemoryPermitStore();
  private final QueuedExecutor queued = new QueuedExecutor();

  private static LimiterSpec.Builder spec(int limit, int maxQueue) {
    return LimiterSpec.custom()
        .maxConcurrency(limit)
        .maxQueue(maxQueue)
        .queueTimeout(Duration.ofSeconds(10));
  }

  private ConcurrencyLimiter.Builder builder(LimiterSpec spec, PermitStore permits, Executor ex) {
    return ConcurrencyLimiter.builder("work")
        .spec(spec)
        .clock(time)
        .scheduler(time)
        .executor(ex)
        .permitStore(permits);
  }

  private ConcurrencyLimiter node(int limit, int maxQueue) {
    return builder(spec(limit, maxQueue).build(), store, Runnable::run).build();
  }

  private static Outcome rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
    } catch (CompletionException e) {
      return ((ConcurrencyRejectedException) e.getCause()).outcome();
    }
    throw new AssertionError("not rejected: " + future);
  }

  @Test
  void aLeaseWaiterThatIsAdmittedOrLeavesCallsOffItsTimeout() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    ConcurrencyLimiter c = node(1, 4);
    int polls = time.pendingTasks();
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> admitted = b.acquire(); // holds b's permit, waits for a lease
    CompletableFuture<Permit> leaves = c.acquire();
    assertThat(time.pendingTasks()).as("a timeout each").isEqualTo(polls + 2);

    held.release();
    assertThat(admitted).isCompleted();
    assertThat(time.pendingTasks()).isEqualTo(polls + 1);
    leaves.cancel(false);

    assertThat(time.pendingTasks()).isEqualTo(polls);
    assertThat(store.waiting("work")).isZero();
  }

  @Test
  void shutdownStopsThePoll() {
    ConcurrencyLimiter node = node(1, 4);
    assertThat(time.pendingTasks()).isEqualTo(1);

    node.shutdown();

    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void aLeaseGrantedToACallerThatCancelledBeforeHearingOfItGoesBack() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = builder(spec(1, 4).build(), store, queued).build();
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();

    held.release(); // b's waiter is granted the lease; its answer waits on b's executor
    assertThat(store.heldNow("work")).isEqualTo(1);
    waiting.cancel(false);
    queued.runAll();

    assertThat(waiting).isCancelled();
    assertThat(store.heldNow("work")).isZero();
    assertThat(b.snapshot().inFlight()).isZero();
    assertThat(b.acquire()).isNotNull();
    queued.runAll();
    assertThat(store.heldNow("work")).isEqualTo(1);
  }

  @Test
  void aCallerWhoseLocalPermitArrivesAfterShutdownIsRefusedAndGivesItBack()
      throws InterruptedException {
    ConcurrencyLimiter node = builder(spec(1, 4).build(), store, queued).build();
    Permit running = admitted(node.acquire());
    CompletableFuture<Permit> waiting = node.acquire(); // in the local queue

    running.release(); // the local permit is granted; its answer waits on the executor
    node.shutdown();
    queued.runAll();

    assertThat(rejection(waiting)).isEqualTo(Outcome.SHUTDOWN);
    assertThat(store.heldNow("work")).isZero();
    assertThat(store.waiting("work")).isZero();
    assertThat(node.snapshot().inFlight()).isZero();
    assertThat(node.awaitDrained(Duration.ZERO)).isTrue();
  }

  @Test
  void newsThatCameWhileAQuestionWasInFlightIsAskedAboutAgain() {
    DeferringStore deferring = new DeferringStore(store);
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = builder(spec(1, 4).build(), deferring, Runnable::run).build();
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    assertThat(deferring.questions).isEqualTo(1);

    deferring.defer = true;
    time.advance(GlobalLimiter.POLL); // asks again; the answer is held back
    b.reconfigure(b.spec()); // news meanwhile: one question in flight is enough
    assertThat(deferring.questions).isEqualTo(2);
    deferring.defer = false;
    deferring.answer(); // refused

    assertThat(deferring.questions).as("asked once more after the answer").isEqualTo(3);
    held.release();
    assertThat(waiting).isCompleted();
  }

  @Test
  void theLocalStagesFinerReasonIsTheCallersReason() {
    List<String> told = new ArrayList<>();
    ConcurrencyLimiter node = builder(
            spec(1, 1).queue(QueueSpec.prioritized()).build(), store, Runnable::run)
        .listener(new ConcurrencyListener() {
          @Override
          public void onRejected(
              String name, Outcome outcome, RejectionReason reason, long waitedNanos) {
            told.add(outcome + " " + reason + " " + waitedNanos);
          }
        })
        .build();
    admitted(node.acquire());
    CompletableFuture<Permit> sheddable =
        node.acquire(Caller.DEFAULT.withPriority(Priority.SHEDDABLE));
    time.advance(Duration.ofMillis(3));

    CompletableFuture<Permit> critical =
        node.acquire(Caller.DEFAULT.withPriority(Priority.CRITICAL));

    assertThat(rejection(sheddable)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(critical).isNotDone();
    assertThat(told)
        .containsExactly("QUEUE_FULL DISPLACED " + Duration.ofMillis(3).toNanos());
    assertThat(node.snapshot().rejectedLate()).as("it had queued").isEqualTo(1);
  }

  @Test
  void aCostlyCallerThatRunsIsNotCountedAsWaiting() {
    ConcurrencyLimiter node = node(4, 1);
    admitted(node.acquire(Caller.DEFAULT.withCost(3)));

    CompletableFuture<Permit> pair = node.acquire(Caller.DEFAULT.withCost(2)); // 1 unit free

    assertThat(pair).as("the one waiting place is free").isNotDone();
    assertThat(node.snapshot().queued()).isEqualTo(1);
  }

  @Test
  void aLeasedPermitTellsItsWaitAndWhetherItWasReleased() throws InterruptedException {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    time.advance(Duration.ofMillis(1_500));
    assertThat(a.awaitDrained(Duration.ZERO)).isFalse();

    held.release();
    Permit permit = admitted(waiting);

    assertThat(a.awaitDrained(Duration.ZERO)).isTrue();
    assertThat(b.name()).isEqualTo("work");
    assertThat(permit.queuedNanos()).isEqualTo(Duration.ofMillis(1_500).toNanos());
    assertThat(permit.isReleased()).isFalse();
    assertThat(permit).hasToString("Permit[work, leased]");
    permit.release();
    assertThat(permit.isReleased()).isTrue();
    assertThat(permit).hasToString("Permit[work, leased, released]");
    Permit blocking = b.acquireBlocking();
    assertThat(blocking.isReleased()).isFalse();
    assertThat(store.heldNow("work")).isEqualTo(1);
  }

  @Test
  void aCallerCancelledInTheLocalQueueLeavesIt() {
    ConcurrencyLimiter node = node(1, 4);
    Permit running = admitted(node.acquire());
    CompletableFuture<Permit> waiting = node.acquire(); // no local permit free: in the queue
    assertThat(node.snapshot().queued()).isEqualTo(1);

    waiting.cancel(false);

    assertThat(node.snapshot().queued()).isZero();
    assertThat(node.snapshot().cancelled()).isEqualTo(1);
    running.release();
    assertThat(node.snapshot().inFlight()).isZero();
    assertThat(store.heldNow("work")).as("nobody was granted the freed permit").isZero();
    assertThat(node.acquire()).isCompleted();
  }

  @Test
  void aFirstRefusalAfterTheQueueBoundShrankFindsNoWaitingPlaceLeft() {
    DeferringStore deferring = new DeferringStore(store);
    ConcurrencyLimiter a = node(2, 4);
    ConcurrencyLimiter b = builder(spec(2, 3).build(), deferring, Runnable::run).build();
    admitted(a.acquire());
    admitted(a.acquire()); // every lease of the cluster
    CompletableFuture<Permit> inLine = b.acquire(); // a local permit, refused its lease: waits
    deferring.defer = true;
    CompletableFuture<Permit> asking = b.acquire(); // the other local permit; the answer waits
    CompletableFuture<Permit> queued = b.acquire(); // the third waiting place: the local queue
    assertThat(b.snapshot().queued()).isEqualTo(2);

    b.reconfigure(spec(2, 2).build()); // two waiting places, both taken
    deferring.defer = false;
    deferring.answer();

    assertThat(rejection(asking)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(inLine).isNotDone();
    assertThat(queued).isNotDone();
    assertThat(b.snapshot().queued()).isEqualTo(2);
  }

  /** Delegates to a store; while {@link #defer} is set, holds the ticketed answers back. */
  private static final class DeferringStore implements PermitStore {
    private final PermitStore delegate;
    boolean defer;
    int questions;
    private final List<Runnable> heldBack = new ArrayList<>();

    DeferringStore(PermitStore delegate) {
      this.delegate = delegate;
    }

    /** Answers every question held back, as the store sees things now. */
    void answer() {
      List<Runnable> now = new ArrayList<>(heldBack);
      heldBack.clear();
      now.forEach(Runnable::run);
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime) {
      return delegate.tryAcquire(limiter, maxPermits, leaseTime);
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime, String ticket) {
      questions++;
      if (!defer) {
        return delegate.tryAcquire(limiter, maxPermits, leaseTime, ticket);
      }
      CompletableFuture<Optional<PermitLease>> later = new CompletableFuture<>();
      heldBack.add(() -> delegate
          .tryAcquire(limiter, maxPermits, leaseTime, ticket)
          .whenComplete((lease, error) -> later.complete(lease)));
      return later;
    }

    @Override
    public void leave(String limiter, String ticket) {
      delegate.leave(limiter, ticket);
    }

    @Override
    public Watch watch(String limiter, Runnable listener) {
      return delegate.watch(limiter, listener);
    }

    @Override
    public void close() {}
  }
}
