package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/**
 * Standing-queue control ({@code queueDelayTarget}): FIFO while the queue drains now and then;
 * newest first, and waiters shed at the target with a 429, once it has not drained for the
 * standing interval; FIFO again once it drains. All in virtual time.
 */
class StandingQueueTest {

  private static final Duration TARGET = Duration.ofMillis(20);

  private final VirtualTime time = new VirtualTime();

  private ConcurrencyLimiter limiter(LimiterSpec spec) {
    return ConcurrencyLimiter.builder("standing")
        .spec(spec)
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run)
        .build();
  }

  private static LimiterSpec.Builder spec(Duration target) {
    return LimiterSpec.custom()
        .maxConcurrency(1)
        .maxQueue(1000)
        .queueTimeout(Duration.ofSeconds(2))
        .queueDelayTarget(target);
  }

  private static RejectionReason reason(CompletableFuture<Permit> f) {
    try {
      f.join();
      return null;
    } catch (CompletionException e) {
      return ((ConcurrencyRejectedException) e.getCause()).reason();
    }
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aQueueThatDrainsWithinTheIntervalStaysFifo() {
    ConcurrencyLimiter limiter = limiter(spec(TARGET).build());
    Permit running = admitted(limiter.acquire());
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      limiter.acquire().thenAccept(p -> {
        order.add(n);
        p.release();
      });
    }
    time.advance(Duration.ofMillis(10)); // less than the target, less than the interval

    running.release();

    assertThat(order).containsExactly(0, 1, 2);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aStandingQueueServesNewestFirstAndShedsAtTheTargetWithA429() {
    ConcurrencyLimiter limiter = limiter(spec(TARGET).build());
    Permit running = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 30; i++) { // a caller every 5 ms: the queue never drains
      time.advance(Duration.ofMillis(5));
      int n = i;
      CompletableFuture<Permit> f = limiter.acquire();
      waiters.add(f);
      f.thenAccept(p -> {
        order.add(n);
        p.release();
      });
    }
    // 150 ms: standing since 105 ms; every waiter that reached the 20 ms target while two rounds
    // of work (two waiters, for one permit) stood behind it was shed

    running.release();

    // newest first while more than the two kept rounds wait (29, then 28), then those in order
    assertThat(order).containsExactly(29, 28, 26, 27);
    for (int i = 0; i < 26; i++) {
      assertThat(reason(waiters.get(i)))
          .as("waiter " + i)
          .isEqualTo(RejectionReason.STANDING_QUEUE);
    }
    assertThat(limiter.snapshot().rejectedLate()).isEqualTo(26);
    assertThat(limiter.snapshot().rejectedQueueTimeout()).isZero();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void aStandingQueueKeepsTwoRoundsOfWorkAndServesThemInOrder() {
    ConcurrencyLimiter limiter = limiter(spec(TARGET).maxConcurrency(2).build());
    Permit first = admitted(limiter.acquire());
    Permit second = admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      time.advance(Duration.ofMillis(1));
      waiters.add(limiter.acquire());
    }
    // far past the target and the interval, with no newer callers: nobody is shed, since four
    // waiters are two rounds of two permits' work, and shedding any would leave a permit idle
    time.advance(Duration.ofMillis(500));
    assertThat(waiters).noneMatch(CompletableFuture::isDone);

    first.release();
    second.release();

    // they are served oldest first: the kept rounds are the good part of the queue
    assertThat(waiters.get(0)).isCompleted();
    assertThat(waiters.get(1)).isCompleted();
    assertThat(waiters.get(2)).isNotDone();
    // three newer callers make the oldest waiting one surplus (four others are two rounds): it is
    // shed at its next look; the next oldest is kept
    for (int i = 0; i < 3; i++) {
      limiter.acquire();
    }
    time.advance(Duration.ofMillis(2));
    assertThat(waiters.get(2)).isCompletedExceptionally();
    assertThat(reason(waiters.get(2))).isEqualTo(RejectionReason.STANDING_QUEUE);
    assertThat(waiters.get(3)).isNotDone();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void withoutControlTheOldestIsServedAndNobodyIsShed() {
    ConcurrencyLimiter limiter = limiter(spec(Duration.ZERO).build());
    Permit running = admitted(limiter.acquire());
    CompletableFuture<Permit> old = limiter.acquire();
    time.advance(Duration.ofMillis(150));
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      limiter.acquire().thenAccept(p -> order.add(n));
    }

    running.release();

    assertThat(old).isCompleted(); // FIFO: the oldest, 150 ms in the queue
    assertThat(order).isEmpty();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void afterTheQueueDrainsTheOrderIsFifoAgain() {
    ConcurrencyLimiter limiter = limiter(spec(TARGET).build());
    Permit running = admitted(limiter.acquire());
    limiter.acquire().thenAccept(Permit::release);
    time.advance(Duration.ofMillis(150)); // stood, and its waiter was shed
    running.release(); // drains: nobody waits
    assertThat(limiter.snapshot().queued()).isZero();

    running = admitted(limiter.acquire());
    List<Integer> order = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      limiter.acquire().thenAccept(p -> {
        order.add(n);
        p.release();
      });
    }
    running.release();

    assertThat(order).containsExactly(0, 1, 2);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void inAFairQueueTheKeysStillTakeTurnsAndEachServesItsNewest() {
    ConcurrencyLimiter limiter = limiter(spec(Duration.ofMillis(50))
        .queue(QueueSpec.fair(FairQueueConfig.DEFAULT))
        .build());
    Permit running = admitted(limiter.acquire());
    List<String> order = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      time.advance(Duration.ofMillis(i == 0 ? 5 : 10));
      String key = i % 2 == 0 ? "a" : "b";
      String who = key + i;
      limiter.acquire(Caller.of(key)).thenAccept(p -> {
        order.add(who);
        p.release();
      });
    }
    time.advance(Duration.ofMillis(5));

    running.release();

    // younger than 50 ms at 150 ms: a10, b11, a12, b13, a14; keys alternate, newest first in each
    assertThat(order).hasSize(5);
    assertThat(order.stream().filter(w -> w.startsWith("a"))).containsExactly("a14", "a12", "a10");
    assertThat(order.stream().filter(w -> w.startsWith("b"))).containsExactly("b13", "b11");
    assertThat(order.get(0).charAt(0)).isNotEqualTo(order.get(1).charAt(0));
  }

  @Test
  void underFiveTimesCapacityAdmittedCallersWaitAboutTheTargetWhereFifoMakesThemWaitTheQueue() {
    List<Long> controlled = overload(TARGET);
    List<Long> fifo = overload(Duration.ZERO);

    long controlledP99 = p99(controlled);
    long fifoP99 = p99(fifo);
    assertThat(controlledP99).isLessThanOrEqualTo(TARGET.toNanos());
    assertThat(fifoP99).isGreaterThan(20 * TARGET.toNanos());
  }

  /**
   * One permit, 20 ms jobs, a caller every 4 ms (5x capacity) for 3 s: the queue waits of the
   * callers admitted after the first 300 ms.
   */
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  private List<Long> overload(Duration target) {
    VirtualTime clock = new VirtualTime();
    ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("overload")
        .clock(clock)
        .scheduler(clock)
        .executor(Runnable::run)
        .spec(spec(target).build())
        .build();
    List<Long> waits = Collections.synchronizedList(new ArrayList<>());
    long start = clock.nanoTime();
    for (int i = 0; i < 750; i++) {
      long arrived = clock.nanoTime();
      limiter.acquire().thenAccept(p -> {
        long now = clock.nanoTime();
        if (now - start > Duration.ofMillis(300).toNanos()) {
          waits.add(now - arrived);
        }
        clock.schedule(p::release, Duration.ofMillis(20).toNanos());
      });
      clock.advance(Duration.ofMillis(4));
    }
    assertThat(waits).isNotEmpty();
    return waits;
  }

  private static long p99(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    Collections.sort(sorted);
    return sorted.get((int) Math.ceil(sorted.size() * 0.99) - 1);
  }

  @Test
  void aTargetSetByReconfigurationShedsFromAStandingQueue() {
    ConcurrencyLimiter limiter = limiter(LimiterSpec.custom()
        .maxConcurrency(1)
        .maxQueue(1000)
        .queueTimeout(Duration.ofSeconds(2))
        .build());
    limiter.reconfigure(spec(TARGET).build());
    admitted(limiter.acquire());
    List<CompletableFuture<Permit>> waiters = new ArrayList<>();
    for (int i = 0; i < 30; i++) { // a caller every 5 ms: the queue never drains
      time.advance(Duration.ofMillis(5));
      waiters.add(limiter.acquire());
    }

    assertThat(waiters.get(0)).isCompletedExceptionally();
    assertThat(reason(waiters.get(0))).isEqualTo(RejectionReason.STANDING_QUEUE);
  }
}
