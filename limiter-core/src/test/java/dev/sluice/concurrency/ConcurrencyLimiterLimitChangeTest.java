package dev.sluice.concurrency;

import static dev.sluice.concurrency.Limiters.admitted;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

class ConcurrencyLimiterLimitChangeTest {

  private final Limiters limiters = new Limiters();

  @Test
  void growingTheLimitAdmitsWaitersAtOnce() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 10);
    admitted(limiter.acquire());
    CompletableFuture<Permit> a = limiter.acquire();
    CompletableFuture<Permit> b = limiter.acquire();
    CompletableFuture<Permit> c = limiter.acquire();

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(3).build());
    limiters.executor.runAll();

    assertThat(a).isCompleted();
    assertThat(b).isCompleted();
    assertThat(c).isNotDone();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(3);
  }

  @Test
  void shrinkingAdmitsNobodyUntilInFlightFallsUnderTheNewLimit() {
    ConcurrencyLimiter limiter = limiters.limiter(3, 10);
    List<Permit> held = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      held.add(admitted(limiter.acquire()));
    }
    CompletableFuture<Permit> waiter = limiter.acquire();

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(1).build());
    held.get(0).release(); // 2 in flight, limit 1
    limiters.executor.runAll();
    assertThat(waiter).isNotDone();
    assertThat(limiter.tryAcquire()).isEmpty();

    held.get(1).release(); // 1 in flight, limit 1: still full
    limiters.executor.runAll();
    assertThat(waiter).isNotDone();

    held.get(2).release(); // 0 in flight: the waiter's turn
    limiters.executor.runAll();
    assertThat(waiter).isCompleted();
    assertThat(limiter.snapshot().inFlight()).isEqualTo(1);
  }

  @Test
  void shrinkingRevokesNoHeldPermit() {
    ConcurrencyLimiter limiter = limiters.limiter(3, 10);
    for (int i = 0; i < 3; i++) {
      admitted(limiter.acquire());
    }

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(1).build());

    assertThat(limiter.snapshot().inFlight()).isEqualTo(3);
    assertThat(limiter.snapshot().limit()).isEqualTo(1);
  }

  @Test
  void growingTheQueueLetsMoreWait() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 0);
    admitted(limiter.acquire());
    assertThat(ConcurrencyLimiterAdmissionTest.outcomeOf(limiter.acquire()))
        .isEqualTo(Outcome.QUEUE_FULL);

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(1).build());

    assertThat(limiter.acquire()).isNotDone();
  }

  @Test
  // pending acquires fill the queue or hold permits; their callbacks record what the test asserts
  @SuppressWarnings("FutureReturnValueIgnored")
  void shrinkingTheQueueKeepsThoseAlreadyWaiting() {
    ConcurrencyLimiter limiter = limiters.limiter(1, 3);
    Permit held = admitted(limiter.acquire());
    CompletableFuture<Permit> a = limiter.acquire();
    limiter.acquire();

    limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxQueue(0).build());

    assertThat(limiter.snapshot().queued()).isEqualTo(2);
    assertThat(ConcurrencyLimiterAdmissionTest.outcomeOf(limiter.acquire()))
        .isEqualTo(Outcome.QUEUE_FULL);
    held.release();
    limiters.executor.runAll();
    assertThat(a).isCompleted();
  }
}
