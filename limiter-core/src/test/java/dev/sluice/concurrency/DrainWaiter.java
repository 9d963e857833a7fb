package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.testing.HangBound;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread in {@link ConcurrencyLimiter#awaitDrained} with a minute to wait, which the test gives
 * {@link HangBound} to come back once the permits are released: a wake-up that never comes fails the
 * test then, instead of hanging it, and the thread (a daemon) gives up on its own later.
 */
public final class DrainWaiter {

  private final Thread thread;
  private final AtomicBoolean drained = new AtomicBoolean();

  private DrainWaiter(ConcurrencyLimiter limiter) {
    thread = new Thread(() -> {
      try {
        drained.set(limiter.awaitDrained(Duration.ofMinutes(1)));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    thread.setDaemon(true);
  }

  /**
   * Started, and back once it waits inside awaitDrained: released earlier, it would find nothing in
   * flight and return at once, and the wake-up would go untested.
   */
  public static DrainWaiter waitingIn(ConcurrencyLimiter limiter) {
    DrainWaiter drain = new DrainWaiter(limiter);
    drain.thread.start();
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> drain.thread.getState() == Thread.State.TIMED_WAITING || !drain.thread.isAlive());
    assertThat(drain.thread.isAlive()).as("waiting for the permits in flight").isTrue();
    return drain;
  }

  /** What awaitDrained returned; false also when it was not back within {@link HangBound}. */
  public boolean result() throws InterruptedException {
    thread.join(HangBound.get().toMillis());
    return !thread.isAlive() && drained.get();
  }
}
