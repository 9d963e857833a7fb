package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Cost-aware admission: a caller's cost is counted in units of the limit. */
class CostTest {

  private final VirtualTime time = new VirtualTime();

  private ConcurrencyLimiter limiter(int max, QueueSpec queue) {
    return ConcurrencyLimiter.builder("cost")
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .spec(LimiterSpec.custom()
            .maxConcurrency(max)
            .maxQueue(100)
            .queueTimeout(Duration.ofSeconds(10))
            .queue(queue)
            .build())
        .build();
  }

  @Test
  void aCostlyCallerTakesItsUnitsAndLeavesTheRest() {
    ConcurrencyLimiter limiter = limiter(8, QueueSpec.fifo());

    Permit big = admitted(limiter.acquire(Caller.DEFAULT.withCost(3)));
    List<CompletableFuture<Permit>> small = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      small.add(limiter.acquire());
    }

    assertThat(small.subList(0, 5)).allSatisfy(f -> assertThat(f).isCompleted());
    assertThat(small.get(5)).isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(8);
    big.release();
    assertThat(small.get(5)).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(6);
  }

  @Test
  void aCallerCostingMoreThanTheWholeLimitRunsAlone() {
    ConcurrencyLimiter limiter = limiter(4, QueueSpec.fifo());
    Permit one = admitted(limiter.acquire());
    CompletableFuture<Permit> huge = limiter.acquire(Caller.DEFAULT.withCost(10));
    CompletableFuture<Permit> after = limiter.acquire();

    assertThat(huge).isNotDone(); // waits until nothing runs
    one.release();
    assertThat(huge).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(4); // the whole limit, not 10
    assertThat(after).isNotDone();
    huge.join().release();
    assertThat(after).isCompleted();
  }

  @Test
  void aCostlyHeadIsNotOvertakenByCheaperCallersBehindIt() {
    ConcurrencyLimiter limiter = limiter(4, QueueSpec.fifo());
    Permit a = admitted(limiter.acquire());
    Permit b = admitted(limiter.acquire());
    Permit c = admitted(limiter.acquire());
    CompletableFuture<Permit> costly = limiter.acquire(Caller.DEFAULT.withCost(3));
    CompletableFuture<Permit> cheap = limiter.acquire();

    a.release(); // 2 free: not enough for the head, and the cheap one may not pass it
    assertThat(costly).isNotDone();
    assertThat(cheap).isNotDone();
    b.release(); // 3 free
    assertThat(costly).isCompleted();
    assertThat(cheap).isNotDone(); // c and the costly one hold all 4 units
    c.release();
    assertThat(cheap).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(4);
  }

  @Test
  void aCostlyWaiterThatGivesUpLeaksNothing() {
    ConcurrencyLimiter limiter = limiter(2, QueueSpec.fifo());
    Permit a = admitted(limiter.acquire());
    Permit b = admitted(limiter.acquire());
    CompletableFuture<Permit> costly = limiter.acquire(Caller.DEFAULT.withCost(2));
    CompletableFuture<Permit> next = limiter.acquire();
    a.release(); // the costly head is taken out to wait for a second unit

    costly.cancel(false);

    assertThat(next).isCompleted(); // the free unit goes on to the next waiter
    assertThat(limiter.snapshot().queued()).isZero();
    b.release();
    next.join().release();
    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.snapshot().cancelled()).isEqualTo(1);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aFairQueueChargesEachKeyItsCost() {
    ConcurrencyLimiter limiter = limiter(1, QueueSpec.fair(FairQueueConfig.DEFAULT));
    Permit running = admitted(limiter.acquire());
    List<String> order = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      limiter.acquire(Caller.of("heavy").withCost(2)).thenAccept(p -> {
        order.add("heavy");
        p.release();
      });
      limiter.acquire(Caller.of("light")).thenAccept(p -> {
        order.add("light");
        p.release();
      });
    }

    running.release();

    // per round each key earns 1: a cost-2 job every second round, a cost-1 job every round
    List<String> firstSix = order.subList(0, 6);
    assertThat(firstSix.stream().filter("light"::equals).count()).isEqualTo(4);
    assertThat(firstSix.stream().filter("heavy"::equals).count()).isEqualTo(2);
  }

  @Test
  void earlyRejectionPredictsInUnitsSoCostlyWorkAheadCounts() {
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("cost")
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .spec(LimiterSpec.custom()
            .maxConcurrency(2)
            .maxQueue(10)
            .queueTimeout(Duration.ofSeconds(1))
            .rejectEarly(true)
            .build())
        .build();
    for (int i = 0; i < 40; i++) { // 500 ms a unit
      Permit p = admitted(limiter.acquire());
      time.advance(Duration.ofMillis(500));
      p.release();
    }
    admitted(limiter.acquire());
    admitted(limiter.acquire());

    CompletableFuture<Permit> a = limiter.acquire(Caller.DEFAULT.withCost(2)); // 2 units: 0.5 s
    CompletableFuture<Permit> b = limiter.acquire(Caller.DEFAULT.withCost(2)); // 2 + 2: 1.0 s
    CompletableFuture<Permit> c = limiter.acquire(); // 4 + 1 units: 1.25 s, past its 1 s

    assertThat(a).isNotDone();
    assertThat(b).isNotDone();
    assertThat(c).isCompletedExceptionally();
    assertThat(c.handle((p, e) -> ((ConcurrencyRejectedException) e).reason()).join())
        .isEqualTo(RejectionReason.PREDICTED_WAIT);
  }
}
