package dev.sluice.loadtest.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongFunction;

/**
 * A process's thread count ({@code Threads:} of {@code /proc/<pid>/status}: every platform thread
 * the kernel runs for it, the JVM's own included), read every {@code period} while it runs: whether
 * queued calls hold threads shows as a count that climbs with the queue.
 */
public final class ThreadCount implements AutoCloseable {

  /**
   * The readings of one stretch of time.
   *
   * @param readings how many times the count was read (0: {@code /proc} absent or unreadable)
   * @param min the fewest threads read
   * @param median the median reading
   * @param max the most threads read
   */
  public record Range(int readings, int min, int median, int max) {

    /** No reading: the process's status could not be read. */
    public static final Range NONE = new Range(0, -1, -1, -1);

    /** The range of these readings, or {@link #NONE} when there are none. */
    public static Range of(List<Integer> counts) {
      if (counts.isEmpty()) {
        return NONE;
      }
      List<Integer> sorted = new ArrayList<>(counts);
      Collections.sort(sorted);
      return new Range(
          sorted.size(),
          sorted.get(0),
          sorted.get((sorted.size() - 1) / 2),
          sorted.get(sorted.size() - 1));
    }

    /** Whether anything was read. */
    public boolean measured() {
      return readings > 0;
    }
  }

  private final LongFunction<OptionalInt> reader;
  private final long pid;
  private final List<Integer> counts = Collections.synchronizedList(new ArrayList<>());
  private final ScheduledExecutorService timer;

  // the task is stopped by shutting the timer down; its future is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private ThreadCount(LongFunction<OptionalInt> reader, long pid, long periodMillis) {
    this.reader = reader;
    this.pid = pid;
    this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "loadtest-threads");
      thread.setDaemon(true);
      return thread;
    });
    timer.scheduleAtFixedRate(this::read, 0, periodMillis, TimeUnit.MILLISECONDS);
  }

  /** Starts reading process {@code pid}'s thread count every {@code periodMillis}. */
  public static ThreadCount watch(long pid, long periodMillis) {
    return new ThreadCount(ThreadCount::of, pid, periodMillis);
  }

  private void read() {
    reader.apply(pid).ifPresent(counts::add);
  }

  /** The readings so far. */
  public Range range() {
    synchronized (counts) {
      return Range.of(counts);
    }
  }

  /** Stops reading and returns the range of what was read. */
  public Range stop() {
    close();
    return range();
  }

  @Override
  public void close() {
    timer.shutdownNow();
    try {
      timer.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /** Whether this machine has {@code /proc/self/status} to read thread counts from. */
  public static boolean available() {
    return parse(readStatus(Path.of("/proc", "self", "status"))).isPresent();
  }

  /** The thread count of process {@code pid}, or empty when it cannot be read (no {@code /proc}). */
  public static OptionalInt of(long pid) {
    return parse(readStatus(Path.of("/proc", Long.toString(pid), "status")));
  }

  private static String readStatus(Path status) {
    try {
      return Files.readString(status);
    } catch (IOException | RuntimeException e) {
      return "";
    }
  }

  /**
   * The {@code Threads:} line of a {@code /proc/<pid>/status} text, e.g. {@code Threads:\t42}, or
   * empty when it has none.
   */
  static OptionalInt parse(String status) {
    for (String line : status.split("\n")) {
      if (line.startsWith("Threads:")) {
        try {
          return OptionalInt.of(
              Integer.parseInt(line.substring("Threads:".length()).trim()));
        } catch (NumberFormatException e) {
          return OptionalInt.empty();
        }
      }
    }
    return OptionalInt.empty();
  }
}
