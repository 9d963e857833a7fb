package dev.sluice.time;

import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

enum SystemScheduler implements Scheduler {
  INSTANCE;

  // Lazily built by the holder idiom so that merely loading the enum starts no thread.
  private static final class Holder {
    static final ScheduledThreadPoolExecutor EXECUTOR = create();

    private static ScheduledThreadPoolExecutor create() {
      ScheduledThreadPoolExecutor executor = new ScheduledThreadPoolExecutor(1, runnable -> {
        Thread thread = new Thread(runnable, "sluice-scheduler");
        thread.setDaemon(true);
        return thread;
      });
      // without this a cancelled timeout stays queued until its deadline: millions of admitted
      // waiters would pin millions of dead tasks
      executor.setRemoveOnCancelPolicy(true);
      return executor;
    }
  }

  @Override
  public Cancellable schedule(Runnable task, long delayNanos) {
    ScheduledFuture<?> future =
        Holder.EXECUTOR.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
    return () -> future.cancel(false);
  }
}
