package dev.sluice.loadtest.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The CPU time (user + system) a server process has spent serving, read per thread from {@code
 * /proc/<pid>/task/<tid>/stat} on Linux (fields 14 and 15, in clock ticks of 1/100 s: USER_HZ is
 * 100 on every Linux ABI the JDK runs on), leaving out the JIT compiler threads: compiling is a
 * warm-up cost that lingers for minutes on a loaded machine and would be charged to whichever
 * service compiled most during a round. Garbage collection stays in: allocation is a real cost of
 * a request. Elsewhere, {@link ProcessHandle.Info#totalCpuDuration()} (the whole process).
 */
public final class ProcessCpu {

  private static final long NANOS_PER_TICK = 10_000_000L;

  private ProcessCpu() {}

  /** CPU nanoseconds used by process {@code pid} so far; -1 when it cannot be read. */
  public static long nanos(long pid) {
    Path tasks = Path.of("/proc", Long.toString(pid), "task");
    if (Files.isDirectory(tasks)) {
      try (java.util.stream.Stream<Path> threads = Files.list(tasks)) {
        long total = 0;
        for (Path thread : (Iterable<Path>) threads::iterator) {
          String line;
          try {
            line = Files.readString(thread.resolve("stat"));
          } catch (IOException gone) {
            continue; // the thread ended between the listing and the read
          }
          if (!isCompiler(line)) {
            total += fromStat(line);
          }
        }
        return total;
      } catch (IOException | RuntimeException e) {
        // fall through to the portable reading
      }
    }
    return ProcessHandle.of(pid).flatMap(p -> p.info().totalCpuDuration())
        .map(Duration::toNanos).orElse(-1L);
  }

  /** HotSpot's JIT threads: {@code C1 CompilerThre}, {@code C2 CompilerThre} (names cut at 15). */
  static boolean isCompiler(String statLine) {
    int open = statLine.indexOf('(');
    return open >= 0 && statLine.startsWith("CompilerThre", open + 4)
        && statLine.charAt(open + 1) == 'C';
  }

  /** utime + stime of a {@code /proc/<pid>/stat} line, in nanoseconds. */
  static long fromStat(String line) {
    // the command name (field 2) is in parentheses and may contain spaces: count after its ')'
    String[] fields = line.substring(line.lastIndexOf(')') + 2).trim().split(" ");
    long utime = Long.parseLong(fields[11]); // field 14 overall
    long stime = Long.parseLong(fields[12]); // field 15
    return (utime + stime) * NANOS_PER_TICK;
  }
}
