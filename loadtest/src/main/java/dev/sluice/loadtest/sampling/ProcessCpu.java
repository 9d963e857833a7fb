package dev.sluice.loadtest.sampling;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * The CPU time (user + system) a server process has spent serving, on Linux: the whole process from
 * {@code /proc/<pid>/stat} (fields 14 and 15, in clock ticks of 1/100 s: USER_HZ is 100 on every
 * Linux ABI the JDK runs on; threads that have ended are included, as they must be: a server's pool
 * retires idle threads, and a sum over the live threads would drop their time and could even
 * shrink), less the JIT compiler threads read per thread from {@code /proc/<pid>/task/<tid>/stat}:
 * compiling is a warm-up cost that lingers for minutes on a loaded machine and would be charged to
 * whichever service compiled most during a round. (A compiler thread that ends takes its time into
 * the total: the load test starts its services with {@code -XX:-UseDynamicNumberOfCompilerThreads}
 * so that none does.) Garbage collection stays in: allocation is a real cost of a request.
 * Elsewhere, {@link ProcessHandle.Info#totalCpuDuration()} (the whole process).
 */
public final class ProcessCpu {

  private static final long NANOS_PER_TICK = 10_000_000L;

  private ProcessCpu() {}

  /** CPU nanoseconds used by process {@code pid} so far; -1 when it cannot be read. */
  public static long nanos(long pid) {
    Path process = Path.of("/proc", Long.toString(pid));
    Path tasks = process.resolve("task");
    if (Files.isDirectory(tasks)) {
      try (java.util.stream.Stream<Path> threads = Files.list(tasks)) {
        long compiling = 0;
        for (Path thread : (Iterable<Path>) threads::iterator) {
          String line;
          try {
            line = Files.readString(thread.resolve("stat"));
          } catch (IOException gone) {
            continue; // the thread ended between the listing and the read
          }
          if (isCompiler(line)) {
            compiling += fromStat(line);
          }
        }
        return fromStat(Files.readString(process.resolve("stat"))) - compiling;
      } catch (IOException | RuntimeException e) {
        // fall through to the portable reading
      }
    }
    return ProcessHandle.of(pid)
        .flatMap(p -> p.info().totalCpuDuration())
        .map(Duration::toNanos)
        .orElse(-1L);
  }

  /** HotSpot's JIT threads: {@code C1 CompilerThre}, {@code C2 CompilerThre} (names cut at 15). */
  static boolean isCompiler(String statLine) {
    int open = statLine.indexOf('(');
    return open >= 0
        && statLine.startsWith("CompilerThre", open + 4)
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
