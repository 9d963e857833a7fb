package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A thread in {@link ConcurrencyLimiter#awaitDrained}, which gives up after {@link #BOUND}: a
 * wake-up that never comes fails the test then, instead of hanging it. The permits are released
 * within milliseconds of its wait, and a wake-up that comes late still finds them released.
 */
public final class DrainWaiter {

  static final Duration BOUND = Duration.ofSeconds(1);

  private final Thread thread;
  private final AtomicBoolean drained = new AtomicBoolean();

  private DrainWaiter(ConcurrencyLimiter limiter) {
    thread = new Thread(() -> {
      try {
        drained.set(limiter.awaitDrained(BOUND));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
  }

  /**
   * Started, and back once it waits inside awaitDrained: released earlier, it would find nothing in
   * flight and return at once, and the wake-up would go untested.
   */
  public static DrainWaiter waitingIn(ConcurrencyLimiter limiter) {
    DrainWaiter drain = new DrainWaiter(limiter);
    drain.thread.start();
    await()
        .atMost(BOUND)
        .pollInterval(Duration.ofMillis(1))
        .until(
            () -> drain.thread.getState() == Thread.State.TIMED_WAITING || !drain.thread.isAlive());
    assertThat(drain.thread.isAlive()).as("waiting for the permits in flight").isTrue();
    return drain;
  }

  /** What awaitDrained returned; false also when it was not back in time (a lock kept). */
  public boolean result() throws InterruptedException {
    thread.join(BOUND.multipliedBy(2).toMillis());
    return !thread.isAlive() && drained.get();
  }
}
