package dev.sluice.concurrency;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.jetbrains.lincheck.Lincheck;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Lincheck's model checker runs each scenario under many thread interleavings (it controls the
 * scheduling at every shared-memory access), where a stress test only hopes to hit the rare ones:
 * a release racing a cancel must hand the permit on or give it back, never lose or duplicate it.
 */
@Tag("stress")
class LimiterModelCheckTest {

  private static ConcurrencyLimiter limiter() {
    VirtualTime time = new VirtualTime();
    return ConcurrencyLimiter.builder("model")
        .spec(LimiterSpec.custom()
            .maxConcurrency(1)
            .maxQueue(1)
            .queueTimeout(Duration.ofSeconds(10))
            .build())
        .clock(time)
        .scheduler(time)
        .executor(Runnable::run) // inline: the whole hand-over happens inside the checked threads
        .build();
  }

  @Test
  void releaseRacingACancelledWaiterNeverLosesThePermit() {
    Lincheck.runConcurrentTest(50, () -> {
      ConcurrencyLimiter limiter = limiter();
      Permit held = limiter.acquire().join();
      CompletableFuture<Permit> waiter = limiter.acquire();
      Thread releaser = new Thread(held::release);
      Thread canceller = new Thread(() -> waiter.cancel(false));
      releaser.start();
      canceller.start();
      join(releaser);
      join(canceller);
      if (!waiter.isCancelled()) {
        waiter.join().release(); // the grant won the race: the caller owns the permit
      }
      check(limiter.snapshot().inFlight() == 0, "in flight after every release");
      check(limiter.snapshot().queued() == 0, "queued after the cancel");
      check(limiter.tryAcquire().isPresent(), "the one permit is free again");
    });
  }

  @Test
  void twoWaitersAndARacingReleaseAdmitExactlyOne() {
    Lincheck.runConcurrentTest(50, () -> {
      ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("model")
          .spec(LimiterSpec.custom().maxConcurrency(1).maxQueue(2).build())
          .clock(new VirtualTime())
          .scheduler(new VirtualTime())
          .executor(Runnable::run)
          .build();
      Permit held = limiter.acquire().join();
      @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type is made raw
      CompletableFuture<Permit>[] got = new CompletableFuture[2];
      Thread a = new Thread(() -> got[0] = limiter.acquire());
      Thread b = new Thread(() -> got[1] = limiter.acquire());
      Thread releaser = new Thread(held::release);
      a.start();
      b.start();
      releaser.start();
      join(a);
      join(b);
      join(releaser);
      int admitted = (got[0].isDone() ? 1 : 0) + (got[1].isDone() ? 1 : 0);
      check(admitted == 1, "one permit, one admission, but " + admitted);
      check(
          limiter.snapshot().inFlight() == 1, "in flight " + limiter.snapshot().inFlight());
      check(limiter.snapshot().queued() == 1, "queued " + limiter.snapshot().queued());
    });
  }

  // plain checks: AssertJ's assertion objects do not survive Lincheck's instrumentation
  private static void check(boolean holds, String what) {
    if (!holds) {
      throw new AssertionError(what);
    }
  }

  private static void join(Thread t) {
    try {
      t.join();
    } catch (InterruptedException e) {
      throw new IllegalStateException(e);
    }
  }
}
