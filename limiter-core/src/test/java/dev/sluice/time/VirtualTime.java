package dev.sluice.time;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.concurrent.ThreadLocalRandom;

/**
 * A virtual clock and scheduler for tests: time moves only when {@link #advance} is called, and
 * scheduled tasks run on the advancing thread when their time comes, in deadline order.
 *
 * <p>Starts at a random {@code nanoTime} (as Caffeine's tests do) so that code which compares raw
 * nano values instead of their differences fails, including across the long overflow boundary.
 * Thread-safe: stress tests may read it and schedule on it from many threads.
 */
public final class VirtualTime implements NanoClock, Scheduler {

  /**
   * More tasks than this run at one instant by one {@link #advanceNanos} call: a task that keeps
   * scheduling itself without delay, which would keep that call (and the test) from ever returning.
   */
  static final int MAX_TASKS_AT_ONE_INSTANT = 100_000;

  private final PriorityQueue<Task> tasks = new PriorityQueue<>();
  private long now;
  private long sequence;

  /** Starts at a random point, sometimes just before {@link Long#MAX_VALUE} so that time wraps. */
  public VirtualTime() {
    this(
        ThreadLocalRandom.current().nextBoolean()
            ? ThreadLocalRandom.current().nextLong()
            : Long.MAX_VALUE
                - ThreadLocalRandom.current().nextLong(Duration.ofHours(1).toNanos()));
  }

  public VirtualTime(long startNanos) {
    this.now = startNanos;
  }

  @Override
  public synchronized long nanoTime() {
    return now;
  }

  @Override
  public synchronized Cancellable schedule(Runnable task, long delayNanos) {
    Task scheduled = new Task(now + Math.max(0, delayNanos), sequence++, task);
    tasks.add(scheduled);
    return () -> {
      synchronized (VirtualTime.this) {
        tasks.remove(scheduled);
      }
    };
  }

  /** Moves time forward, running every task that falls due, each at its own deadline. */
  public void advance(Duration duration) {
    advanceNanos(duration.toNanos());
  }

  public void advanceNanos(long nanos) {
    if (nanos < 0) {
      throw new IllegalArgumentException("time only moves forward: " + nanos);
    }
    long target;
    synchronized (this) {
      target = now + nanos;
    }
    int atThisInstant = 0;
    while (true) {
      Task due;
      synchronized (this) {
        Task head = tasks.peek();
        if (head == null || head.deadline - target > 0) {
          now = target;
          return;
        }
        due = tasks.poll();
        if (due.deadline - now > 0) {
          now = due.deadline;
          atThisInstant = 0;
        } else if (++atThisInstant > MAX_TASKS_AT_ONE_INSTANT) {
          throw new IllegalStateException("time cannot move: more than " + MAX_TASKS_AT_ONE_INSTANT
              + " tasks ran at one instant, the last " + due.task);
        }
      }
      // run outside the lock: a task may schedule another one or read the clock
      due.task.run();
    }
  }

  /** Runs the tasks that are already due without moving time. */
  public void runDue() {
    advanceNanos(0);
  }

  /** How many tasks wait to run. */
  public synchronized int pendingTasks() {
    return tasks.size();
  }

  /** The delays from now of the tasks waiting to run, soonest first. */
  public synchronized List<Long> pendingDelaysNanos() {
    List<Task> sorted = new ArrayList<>(tasks);
    sorted.sort(null);
    List<Long> deadlines = new ArrayList<>();
    for (Task task : sorted) {
      deadlines.add(task.deadline - now);
    }
    return deadlines;
  }

  private static final class Task implements Comparable<Task> {
    final long deadline;
    final long sequence;
    final Runnable task;

    Task(long deadline, long sequence, Runnable task) {
      this.deadline = deadline;
      this.sequence = sequence;
      this.task = task;
    }

    @Override
    public int compareTo(Task other) {
      // compare differences, not values: deadlines may straddle the overflow boundary
      int byDeadline = Long.signum(deadline - other.deadline);
      return byDeadline != 0 ? byDeadline : Long.compare(sequence, other.sequence);
    }
  }
}
