package dev.sluice.loadtest.engine;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The load generator's sense of time: a monotonic clock and a way to run a task later. Injected so
 * the open-loop scheduler and the retry logic can be tested on virtual time.
 */
public interface LoadClock {

  long nanoTime();

  void schedule(Runnable task, long delayNanos);

  /** The real clock; tasks run on one daemon thread and must not block (sends are asynchronous). */
  static LoadClock system() {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "loadtest-timer");
      thread.setDaemon(true);
      return thread;
    });
    return new LoadClock() {
      @Override
      public long nanoTime() {
        return System.nanoTime();
      }

      @Override
      // load-test tool: a periodic task that throws stops, which shows as missing samples in the
      // report
      @SuppressWarnings("FutureReturnValueIgnored")
      public void schedule(Runnable task, long delayNanos) {
        timer.schedule(task, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
      }
    };
  }
}
