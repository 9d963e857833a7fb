package dev.sluice.concurrency.internal;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.store.InMemoryPermitStore;
import dev.sluice.store.PermitStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** A global limiter: permits as leases shared by every node, queued on each node and in one line. */
class GlobalLimiterTest {

  private final VirtualTime time = new VirtualTime();
  private final InMemoryPermitStore store = new InMemoryPermitStore();

  private ConcurrencyLimiter node(int limit, int maxQueue) {
    return node(limit, maxQueue, store);
  }

  private ConcurrencyLimiter node(int limit, int maxQueue, PermitStore permits) {
    return ConcurrencyLimiter.builder("work")
        .spec(LimiterSpec.custom()
            .maxConcurrency(limit)
            .maxQueue(maxQueue)
            .queueTimeout(Duration.ofSeconds(10))
            .build())
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .permitStore(permits)
        .build();
  }

  private static Outcome rejection(CompletableFuture<Permit> future) {
    assertThat(future).isCompletedExceptionally();
    try {
      future.join();
      throw new AssertionError("not rejected");
    } catch (CompletionException e) {
      return ((ConcurrencyRejectedException) e.getCause()).outcome();
    }
  }

  @Test
  void aCallerThatFindsEveryLeaseTakenWaitsAndIsAdmittedWhenAnotherNodeReleases() {
    ConcurrencyLimiter a = node(2, 4);
    ConcurrencyLimiter b = node(2, 4);
    Permit first = admitted(a.acquire());
    admitted(a.acquire());

    CompletableFuture<Permit> waiting = b.acquire();

    assertThat(waiting).isNotDone();
    assertThat(b.snapshot().queued()).isEqualTo(1);
    first.release();
    assertThat(waiting).isCompleted();
    assertThat(store.heldNow("work")).isEqualTo(2);
    assertThat(b.snapshot().inFlight()).isEqualTo(1);
    assertThat(a.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void aWaiterWithoutALeaseTimesOutWith504AtItsDeadlineAndLeavesTheLine() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    assertThat(store.waiting("work")).isEqualTo(1);

    time.advance(Duration.ofMillis(9_999));
    assertThat(waiting).isNotDone();
    time.advance(Duration.ofMillis(1));

    assertThat(rejection(waiting)).isEqualTo(Outcome.QUEUE_TIMEOUT);
    assertThat(store.waiting("work")).isZero();
    assertThat(b.snapshot().rejectedQueueTimeout()).isEqualTo(1);
    assertThat(b.snapshot().queued()).isZero();
  }

  @Test
  void maxQueueBoundsThisNodesQueueAndItsLeaseWaitersTogether() {
    ConcurrencyLimiter a = node(1, 2);
    ConcurrencyLimiter b = node(1, 2);
    admitted(a.acquire());

    CompletableFuture<Permit> holdsLocalPermit = b.acquire(); // refused a lease: waits for one
    CompletableFuture<Permit> queued = b.acquire(); // waits for the local permit
    CompletableFuture<Permit> overflow = b.acquire();

    assertThat(holdsLocalPermit).isNotDone();
    assertThat(queued).isNotDone();
    assertThat(rejection(overflow)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(b.snapshot().queued()).isEqualTo(2);
    assertThat(b.snapshot().rejectedQueueFull()).isEqualTo(1);
  }

  @Test
  void aCallerWithAFreeLocalPermitIsRefusedWhenEveryWaitingPlaceIsTaken() {
    // limit 4 above maxQueue 2: two callers refused a lease fill the waiting places; the third
    // takes a free local permit, is refused a lease and has nowhere to wait
    ConcurrencyLimiter a = node(4, 2);
    ConcurrencyLimiter b = node(4, 2);
    for (int i = 0; i < 4; i++) {
      admitted(a.acquire());
    }

    CompletableFuture<Permit> first = b.acquire();
    CompletableFuture<Permit> second = b.acquire();
    CompletableFuture<Permit> third = b.acquire();

    assertThat(first).isNotDone();
    assertThat(second).isNotDone();
    assertThat(rejection(third)).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(b.snapshot().queued()).isEqualTo(2);
    assertThat(b.snapshot().inFlight()).isZero();
    assertThat(store.waiting("work"))
        .as("the refused caller left the store's line")
        .isEqualTo(2);
    assertThat(b.snapshot().rejectedLate()).as("it never queued").isZero();
  }

  @Test
  void aWaitingPlaceFreedInTheLineIsTakenByTheNextCaller() {
    ConcurrencyLimiter a = node(1, 2);
    ConcurrencyLimiter b = node(1, 2);
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> leaseWaiter = b.acquire();
    CompletableFuture<Permit> queued = b.acquire();

    held.release(); // the lease goes to B's lease waiter; its queued caller then waits for a lease

    assertThat(leaseWaiter).isCompleted();
    assertThat(queued).isNotDone();
    CompletableFuture<Permit> next = b.acquire();
    assertThat(next).isNotDone();
    assertThat(rejection(b.acquire())).isEqualTo(Outcome.QUEUE_FULL);
    assertThat(b.snapshot().queued()).isEqualTo(2);
    leaseWaiter.join().release();
    assertThat(queued).isCompleted();
    assertThat(b.snapshot().queued()).isEqualTo(1);
  }

  @Test
  void aFreedLeaseGoesToTheOldestWaiterInTheClusterNotToTheReleasingNode() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> bWaits = b.acquire(); // joins the line first
    CompletableFuture<Permit> aWaits = a.acquire(); // queued on A behind its own job

    held.release();

    assertThat(bWaits).isCompleted();
    assertThat(aWaits).isNotDone();
    bWaits.join().release();
    assertThat(aWaits).isCompleted();
  }

  @Test
  void withoutNotificationsTheSlowPollFindsAFreedLease() {
    ConcurrencyLimiter b = node(1, 4);
    store.refuseAll(true);
    CompletableFuture<Permit> waiting = b.acquire();
    store.refuseAll(false); // a lease came free and nobody said so

    time.advance(GlobalLimiter.POLL);

    assertThat(waiting).isCompleted();
  }

  @Test
  void cancellingAWaiterLeavesTheLineAndReleasesItsLocalPermit() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    CompletableFuture<Permit> queuedBehind = b.acquire();

    waiting.cancel(false);
    queuedBehind.cancel(false);

    assertThat(store.waiting("work")).isZero();
    assertThat(b.snapshot().queued()).isZero();
    assertThat(b.snapshot().cancelled()).isEqualTo(2);
    held.release();
    assertThat(store.heldNow("work")).isZero();
    assertThat(b.acquire()).isCompleted();
  }

  @Test
  void aCallerThatLeavesWhileItsQuestionIsInFlightDoesNotStayInTheLine() {
    // the store registers the ticket only after the caller has left (and its leave found nothing):
    // the refused answer must take the ticket out again, or it blocks a lease for everyone
    HookedStore hooked = new HookedStore(store);
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4, hooked);
    Permit held = admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    assertThat(store.waiting("work")).isEqualTo(1);

    hooked.beforeNextAsk = () -> waiting.cancel(false);
    time.advance(GlobalLimiter.POLL); // the poll asks again; the caller leaves during the question

    assertThat(waiting).isCancelled();
    assertThat(store.waiting("work")).isZero();
    held.release();
    assertThat(a.acquire()).isCompleted();
  }

  /** Delegates to a store; runs a hook once just before the next ticketed question. */
  private static class HookedStore implements PermitStore {
    private final PermitStore delegate;
    volatile Runnable beforeNextAsk;

    HookedStore(PermitStore delegate) {
      this.delegate = delegate;
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime) {
      return delegate.tryAcquire(limiter, maxPermits, leaseTime);
    }

    @Override
    public CompletionStage<Optional<PermitLease>> tryAcquire(
        String limiter, int maxPermits, Duration leaseTime, String ticket) {
      Runnable hook = beforeNextAsk;
      beforeNextAsk = null;
      if (hook != null) {
        hook.run();
      }
      return delegate.tryAcquire(limiter, maxPermits, leaseTime, ticket);
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

  @Test
  void releaseIsIdempotentAndGivesTheLeaseBackOnce() {
    ConcurrencyLimiter a = node(2, 4);
    Permit permit = admitted(a.acquire());
    admitted(a.acquire());

    permit.release();
    permit.release();

    assertThat(store.heldNow("work")).isEqualTo(1);
    assertThat(a.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void shutdownRejectsTheLineAndTheQueueAndLaterCallers() {
    ConcurrencyLimiter a = node(1, 4);
    ConcurrencyLimiter b = node(1, 4);
    admitted(a.acquire());
    CompletableFuture<Permit> waiting = b.acquire();
    CompletableFuture<Permit> queued = b.acquire();

    b.shutdown();

    assertThat(rejection(waiting)).isEqualTo(Outcome.SHUTDOWN);
    assertThat(rejection(queued)).isEqualTo(Outcome.SHUTDOWN);
    assertThat(rejection(b.acquire())).isEqualTo(Outcome.SHUTDOWN);
    assertThat(store.waiting("work")).isZero();
    assertThat(b.isShutdown()).isTrue();
  }

  @Test
  void theSnapshotShowsThisNodesRunningJobsAndClusterLeasesShowsEveryNodes() {
    ConcurrencyLimiter a = node(3, 4);
    ConcurrencyLimiter b = node(3, 4);
    admitted(a.acquire());
    admitted(b.acquire());
    admitted(b.acquire());

    time.advance(GlobalLimiter.POLL);

    assertThat(a.snapshot().inFlight()).isEqualTo(1);
    assertThat(b.snapshot().inFlight()).isEqualTo(2);
    assertThat(a.clusterLeases()).hasValue(3);
    assertThat(a.snapshot().admitted()).isEqualTo(1);
  }

  @Test
  void aLocalLimiterHasNoClusterLeases() {
    assertThat(ConcurrencyLimiter.builder("x").build().clusterLeases()).isEmpty();
  }

  @Test
  void theSnapshotCountsEachCallerThatQueuedAndEachJobThatEnded() {
    ConcurrencyLimiter a = node(1, 4);
    Permit first = admitted(a.acquire());
    CompletableFuture<Permit> queued = a.acquire(); // waits for the local permit

    assertThat(a.snapshot().queuedTotal()).isEqualTo(1);
    time.advance(Duration.ofMillis(40));
    first.release();
    time.advance(Duration.ofMillis(60));
    queued.join().release();

    assertThat(a.snapshot().queuedTotal()).isEqualTo(1);
    assertThat(a.snapshot().serviceCount()).isEqualTo(2);
    assertThat(a.snapshot().serviceTotalNanos())
        .isEqualTo(Duration.ofMillis(100).toNanos());
    assertThat(a.snapshot().queueWaitTotalNanos())
        .isEqualTo(Duration.ofMillis(40).toNanos());
  }

  @Test
  void jobsThatRanAndEndedLeaveTheWaitingPlacesAsTheyWere() {
    ConcurrencyLimiter a = node(1, 1);
    ConcurrencyLimiter b = node(1, 1);
    admitted(b.acquire()).release();
    admitted(a.acquire()); // the only lease

    CompletableFuture<Permit> waitsForALease = b.acquire(); // takes the only waiting place
    CompletableFuture<Permit> overflow = b.acquire();

    assertThat(waitsForALease).isNotDone();
    assertThat(rejection(overflow)).isEqualTo(Outcome.QUEUE_FULL);
  }

  @Test
  void aLeaseReleasedOnThisNodeGoesToItsWaiterAtOnceWithoutTheStoresNotice() {
    PermitStore silent = new HookedStore(store) {
      @Override
      public Watch watch(String limiter, Runnable listener) {
        return () -> {}; // tells nobody that a lease came free
      }
    };
    ConcurrencyLimiter a = node(2, 4, silent);
    ConcurrencyLimiter b = node(2, 4, silent);
    admitted(a.acquire());
    Permit running = admitted(b.acquire());
    CompletableFuture<Permit> waiting = b.acquire(); // a local permit, no lease

    running.release();

    assertThat(waiting).isCompleted();
  }

  @Test
  void shutdownStopsListeningToTheStore() {
    AtomicBoolean closed = new AtomicBoolean();
    PermitStore watched = new HookedStore(store) {
      @Override
      public Watch watch(String limiter, Runnable listener) {
        Watch watch = super.watch(limiter, listener);
        return () -> {
          closed.set(true);
          watch.close();
        };
      }
    };
    ConcurrencyLimiter node = node(1, 4, watched);

    node.shutdown();

    assertThat(closed).isTrue();
  }
}
