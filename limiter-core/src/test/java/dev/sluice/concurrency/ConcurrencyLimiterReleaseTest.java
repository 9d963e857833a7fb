package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterReleaseTest {

  private final Limiters limiters = new Limiters();

  @Test
  void releaseGivesThePermitBack() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    Permit permit = admitted(limiter.acquire());

    permit.release();

    assertThat(permit.isReleased()).isTrue();
    assertThat(limiter.snapshot().inFlight()).isZero();
    assertThat(limiter.acquire()).isCompleted();
  }

  @Test
  void secondReleaseAddsNoPermit() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    Permit permit = admitted(limiter.acquire());
    permit.release();
    Permit other = admitted(limiter.acquire());

    permit.release();
    permit.close();

    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
    assertThat(limiter.tryAcquire()).as("still one permit, held by 'other'").isEmpty();
    assertThat(other.isReleased()).isFalse();
  }

  @Test
  void secondReleaseDoesNotGrantASecondWaiter() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = admitted(limiter.acquire());
    CompletableFuture<Permit> first = limiter.acquire();
    CompletableFuture<Permit> second = limiter.acquire();

    permit.release();
    permit.release();
    limiters.executor.runAll();

    assertThat(first).isCompleted();
    assertThat(second).isNotDone();
  }

  @Test
  void releaseHandsThePermitStraightToTheHeadWaiter() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = admitted(limiter.acquire());
    CompletableFuture<Permit> waiter = limiter.acquire();

    permit.release();

    assertThat(limiter.snapshot().inFlight()).as("the permit never became free").isEqualTo(1);
    assertThat(limiter.snapshot().queued()).isZero();
    limiters.executor.runAll();
    assertThat(waiter).isCompleted();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void waiterIsCompletedOnTheExecutorNotInlineOnTheReleasingThread() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = admitted(limiter.acquire());
    AtomicReference<Thread> continuationThread = new AtomicReference<>();
    limiter.acquire().thenRun(() -> continuationThread.set(Thread.currentThread()));

    permit.release();
    assertThat(continuationThread.get()).as("nothing ran inline in release()").isNull();
    assertThat(limiters.executor.pending()).isEqualTo(1);

    Thread worker = new Thread(limiters.executor::runAll, "executor-worker");
    worker.start();
    joinQuietly(worker);
    assertThat(continuationThread.get()).isSameAs(worker);
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void permitReleasedInsideAContinuationHandsOnToTheNextWaiter() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 5);
    Permit permit = admitted(limiter.acquire());
    limiter.acquire().thenAccept(Permit::release);
    CompletableFuture<Permit> last = limiter.acquire();

    permit.release();
    limiters.executor.runAll();

    assertThat(last).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  private static void joinQuietly(Thread thread) {
    try {
      thread.join();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new AssertionError(e);
    }
  }
}
