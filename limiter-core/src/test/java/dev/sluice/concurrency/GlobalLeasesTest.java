package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.store.InMemoryPermitStore;
import dev.sluice.store.PermitStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * A global limiter (permits as leases in a {@link PermitStore}) on the paths a healthy store with
 * one node does not take: a store that throws, fails or answers late, a caller that never queues
 * ({@code tryAcquire}), its own deadline, a reconfiguration, shutdown. Configured by spec only.
 */
class GlobalLeasesTest {

  private static final Duration POLL = Duration.ofMillis(500);

  private final VirtualTime time = new VirtualTime();
  private final InMemoryPermitStore store = new InMemoryPermitStore();
  private final QueuedExecutor executor = new QueuedExecutor();
  private final List<String> heard = new ArrayList<>();

  private LimiterSpec.Builder spec(int limit, int maxQueue) {
    return LimiterSpec.custom()
        .maxConcurrency(limit)
        .maxQueue(maxQueue)
        .queueTimeout(Duration.ofSeconds(10));
  }

  private ConcurrencyLimiter node(LimiterSpec spec, PermitStore permits) {
    return ConcurrencyLimiter.builder("work")
        .spec(spec)
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .permitStore(permits)
        .build();
  }

  private ConcurrencyLimiter node(int limit, int maxQueue) {
    return node(spec(limit, maxQueue).build(), store);
  }

  private ConcurrencyLimiter listenedNode(int limit, int maxQueue) {
    return ConcurrencyLimiter.builder("work")
        .spec(spec(limit, maxQueue).build())
        .clock(time)
        .scheduler(time)
        .executor(executor)
        .permitStore(store)
        .listener(new ConcurrencyListener() {
          @Override
          public void onQueued(String limiter) {
            heard.add("queued");
          }

          @Override
          public void onAdmitted(String limiter, long queuedNanos) {
            heard.add("admitted after " + queuedNanos);
          }

          @Override
          public void onReleased(String limiter, long serviceNanos) {
            heard.add("released after " + serviceNanos);
          }

          @Override
          public void onRejected(
              String limiter, Outcome outcome, RejectionReason reason, long waitedNanos) {
            heard.add(outcome + " " + reason + " after " + waitedNanos);
          }
        })
        .build();
  }

  private static ConcurrencyRejectedException rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    return (ConcurrencyRejectedException) future.handle((p, e) -> e).join();
  }

  /** A store whose every question fails: by throwing, or with a failed answer. */
  private static final class BrokenStore implements PermitStore {
    final PermitStore healthy;
    volatile boolean throwing;
    volatile boolean failing;
    volatile CompletableFuture<Optional<PermitLease>> pending;
    final AtomicInteger asked = new AtomicInteger();

    BrokenStore(PermitStore healthy) {
      this.healthy = healthy;
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime) {
      return tryAcquire(limiter, maxPermits, leaseTime, null);
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime, String ticket) {
      asked.incrementAndGet();
      if (throwing) {
        throw new IllegalStateException("store unreachable");
      }
      if (failing) {
        return CompletableFuture.failedFuture(new IllegalStateException("store unreachable"));
      }
      if (pending != null) {
        return pending;
      }
      return healthy.tryAcquire(limiter, maxPermits, leaseTime, ticket);
    }

    @Override
    public void leave(String limiter, String ticket) {
      healthy.leave(limiter, ticket);
    }

    @Override
    public Watch watch(String limiter, Runnable listener) {
      return healthy.watch(limiter, listener);
    }

    @Override
    public CompletionStage<Integer> held(String limiter) {
      return failing
          ? CompletableFuture.failedFuture(new IllegalStateException("store unreachable"))
          : healthy.held(limiter);
    }

    @Override
    public void close() {}
  }

  @Test
  void tryAcquireTakesALeaseWhenTheStoreGrantsOneAtOnce() {
    ConcurrencyLimiter node = node(2, 4);

    Optional<Permit> permit = node.tryAcquire();

    assertThat(permit).isPresent();
    assertThat(store.heldNow("work")).isEqualTo(1);
    assertThat(node.snapshot().inFlight()).isEqualTo(1);
    assertThat(node.snapshot().admitted()).isEqualTo(1);
    permit.get().release();
    assertThat(store.heldNow("work")).isZero();
    assertThat(node.snapshot().inFlight()).isZero();
  }

  @Test
  void tryAcquireRefusedByTheStoreGivesTheLocalPermitBack() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);

    assertThat(node.tryAcquire()).isEmpty();
    assertThat(node.snapshot().rejectedQueueFull()).isEqualTo(1);
    store.refuseAll(false);

    assertThat(node.tryAcquire()).isPresent();
  }

  @Test
  void tryAcquireWithEveryLocalPermitTakenAsksTheStoreNothing() {
    BrokenStore counting = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), counting);
    admitted(node.acquire());
    int asked = counting.asked.get();

    assertThat(node.tryAcquire()).isEmpty();

    assertThat(counting.asked.get()).isEqualTo(asked);
    assertThat(node.snapshot().rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  void tryAcquireAfterShutdownIsRefusedAsShutdown() {
    ConcurrencyLimiter node = node(1, 4);
    node.shutdown();

    assertThat(node.tryAcquire()).isEmpty();

    assertThat(node.snapshot().rejectedShutdown()).isEqualTo(1);
    assertThat(node.snapshot().rejectedQueueFull()).isZero();
  }

  @Test
  void tryAcquireOfAStoreThatThrowsIsRefusedAndGivesTheLocalPermitBack() {
    BrokenStore broken = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), broken);
    broken.throwing = true;

    assertThat(node.tryAcquire()).isEmpty();
    broken.throwing = false;

    assertThat(node.tryAcquire()).isPresent();
  }

  @Test
  void tryAcquireOfAStoreThatAnswersLateIsRefusedAndTheLateLeaseGoesBack() {
    BrokenStore slow = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), slow);
    slow.pending = new CompletableFuture<>();

    assertThat(node.tryAcquire()).isEmpty();
    CompletableFuture<Optional<PermitStore.PermitLease>> late = slow.pending;
    slow.pending = null;
    late.complete(Optional.of(store
        .tryAcquire("work", 1, Duration.ofSeconds(3))
        .toCompletableFuture()
        .join()
        .get()));

    assertThat(store.heldNow("work")).isZero();
    assertThat(node.tryAcquire()).isPresent();
  }

  @Test
  void aCallerWhoseQuestionThrowsWaitsAndGetsItsLeaseAtTheNextPoll() {
    BrokenStore broken = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), broken);
    broken.throwing = true;

    CompletableFuture<Permit> waiting = node.acquire();
    assertThat(waiting).isNotDone();
    broken.throwing = false;
    time.advance(POLL);

    assertThat(waiting).isCompleted();
    assertThat(store.heldNow("work")).isEqualTo(1);
  }

  @Test
  void aCallerWhoseQuestionFailsWaitsAndGetsItsLeaseAtTheNextPoll() {
    BrokenStore broken = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), broken);
    broken.failing = true;

    CompletableFuture<Permit> waiting = node.acquire();
    assertThat(waiting).isNotDone();
    assertThat(node.snapshot().queued()).isEqualTo(1);
    broken.failing = false;
    time.advance(POLL);

    assertThat(waiting).isCompleted();
    assertThat(node.snapshot().queued()).isZero();
  }

  @Test
  void theStoreIsAskedAgainEveryPollWhileACallerWaits() {
    BrokenStore counting = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), counting);
    store.refuseAll(true);
    assertThat(node.acquire()).isNotDone();
    int asked = counting.asked.get();

    time.advance(POLL.multipliedBy(3));

    assertThat(counting.asked.get()).isEqualTo(asked + 3);
  }

  @Test
  void clusterLeasesAreEmptyWhileTheStoreCannotTell() {
    BrokenStore broken = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(2, 4).build(), broken);
    admitted(node.acquire());
    time.advance(POLL);
    assertThat(node.clusterLeases()).hasValue(1);

    broken.failing = true;
    time.advance(POLL);

    assertThat(node.clusterLeases()).isEmpty();
  }

  @Test
  void clusterLeasesAreUnknownBeforeTheFirstPoll() {
    ConcurrencyLimiter node = node(2, 4);
    admitted(node.acquire());

    assertThat(node.clusterLeases()).isEmpty();
  }

  @Test
  void aCallersOwnShorterTimeoutEndsItsWaitForALease() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> hurried =
        node.acquire(Caller.of("client").withTimeout(Duration.ofSeconds(2)));

    time.advanceNanos(Duration.ofSeconds(2).toNanos() - 1);
    assertThat(hurried).isNotDone();
    time.advanceNanos(1);

    assertThat(rejection(hurried).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(node.snapshot().rejectedQueueTimeout()).isEqualTo(1);
    assertThat(store.waiting("work")).isZero();
  }

  @Test
  void aCallersTimeoutLongerThanTheLimitersIsCutToTheLimiters() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> patient =
        node.acquire(Caller.of("client").withTimeout(Duration.ofDays(365_000_000L)));

    time.advanceNanos(Duration.ofSeconds(10).toNanos() - 1);
    assertThat(patient).isNotDone();
    time.advanceNanos(1);

    assertThat(rejection(patient).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
  }

  @Test
  void aCallerWaitingInTheLocalQueueTimesOutThere() {
    ConcurrencyLimiter node = node(1, 4);
    admitted(node.acquire());
    CompletableFuture<Permit> queued = node.acquire();

    time.advance(Duration.ofSeconds(10));

    ConcurrencyRejectedException timedOut = rejection(queued);
    assertThat(timedOut.outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(node.snapshot().rejectedQueueTimeout()).isEqualTo(1);
    assertThat(node.snapshot().queued()).isZero();
  }

  @Test
  void aLongerQueueTimeoutAppliesToCallersAfterTheReconfiguration() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> before = node.acquire();
    node.reconfigure(
        LimiterSpec.from(node.spec()).queueTimeout(Duration.ofSeconds(20)).build());
    CompletableFuture<Permit> after = node.acquire();

    time.advance(Duration.ofSeconds(10));
    assertThat(rejection(before).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(after).isNotDone();
    time.advance(Duration.ofSeconds(10));

    assertThat(rejection(after).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
  }

  @Test
  void aHigherLimitLetsAWaiterTakeALeaseAtOnce() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    assertThat(waiting).isNotDone();

    b.reconfigure(LimiterSpec.from(b.spec()).maxConcurrency(2).build());

    assertThat(waiting).isCompleted();
    assertThat(b.limit()).isEqualTo(2);
    assertThat(b.spec().maxConcurrency()).isEqualTo(2);
  }

  @Test
  void aLocalQueueRefusalKeepsItsReason() {
    ConcurrencyLimiter node = node(
        spec(1, 4)
            .queue(QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(1).build()))
            .build(),
        store);
    admitted(node.acquire());
    assertThat(node.acquire(Caller.of("tenant"))).isNotDone();

    ConcurrencyRejectedException refused = rejection(node.acquire(Caller.of("tenant")));

    assertThat(refused.reason()).isEqualTo(RejectionReason.KEY_CAP);
    assertThat(node.queueSnapshot().rejectedKeyCap()).isEqualTo(1);
    assertThat(node.queueSnapshot().keys()).isEqualTo(1);
    assertThat(node.snapshot().rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  void shutdownStopsThePoll() {
    BrokenStore counting = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), counting);
    node.shutdown();
    int asked = counting.asked.get();

    time.advance(POLL.multipliedBy(4));

    assertThat(counting.asked.get()).isEqualTo(asked);
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void aCallerRefusedALeaseAfterShutdownIsAnsweredShutdown() {
    ConcurrencyLimiter node = node(2, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = node.acquire();

    node.shutdown();

    assertThat(rejection(waiting).outcome()).isEqualTo(Outcome.SHUTDOWN);
    assertThat(node.snapshot().rejectedShutdown()).isEqualTo(1);
    assertThat(node.snapshot().queued()).isZero();
  }

  @Test
  void aLeaseGrantedAfterTheCallerTimedOutGoesBackAtOnce() {
    BrokenStore slow = new BrokenStore(store);
    ConcurrencyLimiter node = node(spec(1, 4).build(), slow);
    slow.pending = new CompletableFuture<>();
    CompletableFuture<Permit> waiting = node.acquire();
    CompletableFuture<Optional<PermitStore.PermitLease>> answer = slow.pending;
    slow.pending = null;
    time.advance(Duration.ofSeconds(10));
    assertThat(rejection(waiting).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);

    answer.complete(Optional.of(store
        .tryAcquire("work", 1, Duration.ofSeconds(3))
        .toCompletableFuture()
        .join()
        .get()));

    assertThat(store.heldNow("work")).isZero();
    assertThat(node.snapshot().inFlight()).isZero();
  }

  @Test
  void theListenerHearsAWaitForALeaseFromQueuedToReleased() {
    ConcurrencyLimiter node = listenedNode(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = node.acquire();
    store.refuseAll(false);

    time.advance(POLL);
    executor.runAll();
    time.advance(Duration.ofMillis(30));
    waiting.join().release();

    assertThat(heard)
        .containsExactly(
            "queued",
            "admitted after " + POLL.toNanos(),
            "released after " + Duration.ofMillis(30).toNanos());
    assertThat(node.snapshot().queueWaitCount()).isEqualTo(1);
    assertThat(node.snapshot().queueWaitTotalNanos()).isEqualTo(POLL.toNanos());
    assertThat(node.snapshot().serviceTotalNanos())
        .isEqualTo(Duration.ofMillis(30).toNanos());
  }

  @Test
  void theListenerHearsATimeoutAfterTheWait() {
    ConcurrencyLimiter node = listenedNode(1, 4);
    store.refuseAll(true);
    assertThat(node.acquire()).isNotDone();

    time.advance(Duration.ofSeconds(10));

    assertThat(heard)
        .containsExactly(
            "queued",
            "QUEUE_TIMEOUT QUEUE_TIMEOUT after " + Duration.ofSeconds(10).toNanos());
  }

  @Test
  void theListenerHearsAnAdmissionWithoutWaitAsZero() {
    ConcurrencyLimiter node = listenedNode(1, 4);

    CompletableFuture<Permit> admitted = node.acquire();

    assertThat(admitted).isCompleted();
    assertThat(heard).containsExactly("admitted after 0");
    assertThat(executor.pending()).isZero();
  }

  @Test
  void theListenerHearsEachAnswerOfTryAcquireWithoutAWait() {
    ConcurrencyLimiter node = listenedNode(1, 4);

    Permit permit = node.tryAcquire().orElseThrow();
    assertThat(node.tryAcquire()).isEmpty(); // the local permit is taken
    time.advance(Duration.ofMillis(20));
    permit.release();
    store.refuseAll(true);
    assertThat(node.tryAcquire()).isEmpty(); // the store refuses
    node.shutdown();
    assertThat(node.tryAcquire()).isEmpty();

    assertThat(heard)
        .containsExactly(
            "admitted after 0",
            "QUEUE_FULL QUEUE_FULL after 0",
            "released after " + Duration.ofMillis(20).toNanos(),
            "QUEUE_FULL QUEUE_FULL after 0",
            "SHUTDOWN SHUTDOWN after 0");
  }

  @Test
  void theListenerHearsACallerWithAFreeLocalPermitRefusedForWantOfAWaitingPlace() {
    ConcurrencyLimiter node = listenedNode(2, 1);
    store.refuseAll(true);
    assertThat(node.acquire()).isNotDone(); // waits for a lease in the only place

    time.advance(Duration.ofMillis(5));
    CompletableFuture<Permit> refused = node.acquire();
    executor.runAll();

    assertThat(rejection(refused).outcome()).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(heard).containsExactly("queued", "QUEUE_FULL QUEUE_FULL after 0");
    assertThat(node.snapshot().rejectedQueueFull()).isEqualTo(1);
    assertThat(node.snapshot().rejectedLate()).isZero();
  }

  @Test
  void aGrantIsDeliveredOnTheExecutorNotOnTheReleasingThread() {
    ConcurrencyLimiter node = listenedNode(1, 4);
    Permit running = admitted(node.acquire());
    CompletableFuture<Permit> waiting = node.acquire();

    running.release();

    assertThat(waiting).isNotDone();
    executor.runAll();
    assertThat(waiting).isCompleted();
  }

  @Test
  void aSaturatedExecutorDeliversTheGrantOnTheCallingThreadInstead() {
    ConcurrencyLimiter node = ConcurrencyLimiter.builder("work")
        .spec(spec(1, 4).build())
        .clock(time)
        .scheduler(time)
        .executor(task -> {
          throw new RejectedExecutionException("saturated");
        })
        .permitStore(store)
        .build();
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = node.acquire();
    store.refuseAll(false);

    time.advance(POLL);

    assertThat(waiting).isCompleted();
  }

  @Test
  void theNodesStringNamesItsLimitAndWhatRunsHere() {
    ConcurrencyLimiter node = node(3, 4);
    admitted(node.acquire());

    assertThat(node.toString())
        .isEqualTo("ConcurrencyLimiter[work, global, limit=3, running here=1, cluster leases=-1]");
    node.shutdown();
    assertThat(node.toString()).endsWith(", shut down]");
  }

  @Test
  void theListenerHearsACallerQueuedForALocalPermit() {
    ConcurrencyLimiter node = listenedNode(1, 4);
    admitted(node.acquire());

    CompletableFuture<Permit> queued = node.acquire();

    assertThat(queued).isNotDone();
    assertThat(heard).containsExactly("admitted after 0", "queued");
  }

  @Test
  void aWaitForALeaseThatTimesOutIsCountedAsAQueuedCallersWaitNotAsALateRefusal() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = node.acquire();

    time.advance(Duration.ofSeconds(10));

    assertThat(rejection(waiting).outcome()).isEqualTo(Outcome.QUEUE_TIMEOUT);
    ConcurrencySnapshot snapshot = node.snapshot();
    assertThat(snapshot.queuedTotal()).isEqualTo(1);
    assertThat(snapshot.queueWaitCount()).isEqualTo(1);
    assertThat(snapshot.queueWaitTotalNanos()).isEqualTo(Duration.ofSeconds(10).toNanos());
    assertThat(snapshot.rejectedLate()).isZero();
  }

  @Test
  void aTimedOutCallerIsToldToRetryAfterTheFallbackServiceTimeBeforeAnyJobWasTimed() {
    ConcurrencyLimiter node = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = node.acquire();

    time.advance(Duration.ofSeconds(10));

    // no service time known: the shorter of the queue timeout and a second, over a limit of 1
    assertThat(rejection(waiting).retryAfterNanos())
        .isEqualTo(Duration.ofSeconds(1).toNanos());
  }

  @Test
  void clusterLeasesCountZeroWhenTheStoreSaysNoneIsHeld() {
    ConcurrencyLimiter node = node(2, 4);

    time.advance(POLL);

    assertThat(node.clusterLeases()).hasValue(0);
  }
}
