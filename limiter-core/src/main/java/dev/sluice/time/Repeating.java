package dev.sluice.time;

/**
 * {@link Scheduler#every}: a task run again {@code intervalNanos} after each run ends, on the
 * scheduler (so polls are driven by virtual time in tests). A run that throws does not end the
 * repetition: a poll that failed once must keep polling.
 */
final class Repeating implements Scheduler.Cancellable {

  private final Scheduler scheduler;
  private final long intervalNanos;
  private final Runnable task;
  private boolean cancelled; // guarded by this
  private Scheduler.Cancellable next; // guarded by this

  private Repeating(Scheduler scheduler, long intervalNanos, Runnable task) {
    this.scheduler = scheduler;
    this.intervalNanos = intervalNanos;
    this.task = task;
  }

  static Repeating start(Scheduler scheduler, long intervalNanos, Runnable task) {
    if (intervalNanos <= 0) {
      throw new IllegalArgumentException("interval must be > 0 but was " + intervalNanos + "ns");
    }
    Repeating r = new Repeating(scheduler, intervalNanos, java.util.Objects.requireNonNull(task));
    r.scheduleNext();
    return r;
  }

  private synchronized void scheduleNext() {
    if (!cancelled) {
      next = scheduler.schedule(this::run, intervalNanos);
    }
  }

  private void run() {
    try {
      task.run();
    } finally {
      scheduleNext();
    }
  }

  @Override
  public synchronized void cancel() {
    cancelled = true;
    if (next != null) {
      next.cancel();
    }
  }
}
