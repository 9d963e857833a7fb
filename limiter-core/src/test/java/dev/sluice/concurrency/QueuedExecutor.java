package dev.sluice.concurrency;

import java.util.ArrayDeque;
import java.util.Queue;
import java.util.concurrent.Executor;

/**
 * An executor that only queues: tasks run when the test says so. It proves that a future was not
 * completed inline on the releasing thread (it stays pending until {@link #runAll()}).
 */
public final class QueuedExecutor implements Executor {

  private final Queue<Runnable> tasks = new ArrayDeque<>();

  @Override
  public synchronized void execute(Runnable task) {
    tasks.add(task);
  }

  /** Runs queued tasks, including any they queue, until none is left; returns how many ran. */
  public int runAll() {
    int ran = 0;
    for (Runnable task = poll(); task != null; task = poll()) {
      task.run();
      ran++;
    }
    return ran;
  }

  public synchronized int pending() {
    return tasks.size();
  }

  private synchronized Runnable poll() {
    return tasks.poll();
  }
}
