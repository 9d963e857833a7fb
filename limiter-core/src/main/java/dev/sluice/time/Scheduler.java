package dev.sluice.time;

/**
 * Runs a task after a delay measured on a {@link NanoClock}. Limiters use it for queue timeouts;
 * tests inject a virtual scheduler that runs tasks when virtual time is advanced, so no test sleeps.
 */
@FunctionalInterface
public interface Scheduler {

  /**
   * Schedules {@code task} to run once, {@code delayNanos} from now. The task must be short and must
   * not block: it runs on the scheduler's own thread.
   *
   * @return a handle that prevents the task from running if it has not started yet
   */
  Cancellable schedule(Runnable task, long delayNanos);

  /**
   * Runs {@code task} every {@code intervalNanos}, each run {@code intervalNanos} after the previous
   * one ended, until the returned handle is cancelled. A run that throws does not end it. The one
   * poller of files and URLs (rules, properties).
   */
  default Cancellable every(long intervalNanos, Runnable task) {
    return Repeating.start(this, intervalNanos, task);
  }

  /** A scheduled task that can still be called off. */
  @FunctionalInterface
  interface Cancellable {
    /** Prevents the task from running if it has not started; does nothing otherwise. */
    void cancel();
  }

  /**
   * A scheduler backed by one shared daemon thread, started on first use. Cancelled tasks are removed
   * from its queue at once, so a limiter that times out few of many waiters keeps no garbage.
   */
  static Scheduler system() {
    return SystemScheduler.INSTANCE;
  }
}
