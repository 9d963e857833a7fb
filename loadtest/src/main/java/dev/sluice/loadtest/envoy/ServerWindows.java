package dev.sluice.loadtest.envoy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Whether exactly the limit was admitted in every one-second window, from what the replicas
 * themselves recorded (their admissions files: per counter and window, the hits each admitted and
 * refused). Unlike {@link WindowCheck}, nothing is attributed: each replica names the window its
 * decision counted on. A window is judged when it lies wholly inside the run and some replica
 * refused in it (the window was under full pressure); it is exact when the replicas' admissions sum
 * to the limit.
 */
final class ServerWindows {

  private static final long SECOND = 1_000_000_000L;

  /** One judged window: each replica's admitted hits, in the order of the files, and refusals. */
  record Window(long epochSecond, List<Long> admittedByReplica, long refused) {
    long admitted() {
      return admittedByReplica.stream().mapToLong(Long::longValue).sum();
    }

    boolean exact(long limit) {
      return admitted() == limit;
    }
  }

  /** Every window judged, and the windows wholly inside the run that were not (never refused). */
  record Result(long limit, List<Window> judged, int unreached) {
    long exact() {
      return judged.stream().filter(w -> w.exact(limit)).count();
    }

    boolean met() {
      return !judged.isEmpty() && exact() == judged.size();
    }
  }

  private ServerWindows() {}

  /** Reads each replica's admissions file (a missing one: nothing recorded) and judges them. */
  static Result read(
      List<Path> files, String counterKey, long limit, long fromEpochNanos, long toEpochNanos)
      throws IOException {
    List<List<String>> lines = new ArrayList<>();
    for (Path file : files) {
      lines.add(Files.exists(file) ? Files.readAllLines(file) : List.of());
    }
    return judge(lines, counterKey, limit, fromEpochNanos, toEpochNanos);
  }

  /**
   * Judges the one-second windows of {@code counterKey} from each replica's lines ({@code <window
   * start> <unit seconds> <admitted> <refused> <key>}; a window's lines are summed).
   */
  static Result judge(
      List<List<String>> linesByReplica,
      String counterKey,
      long limit,
      long fromEpochNanos,
      long toEpochNanos) {
    int replicas = linesByReplica.size();
    Map<Long, long[]> admitted = new TreeMap<>();
    Map<Long, Long> refused = new TreeMap<>();
    for (int r = 0; r < replicas; r++) {
      for (String line : linesByReplica.get(r)) {
        String[] fields = line.split(" ", 5);
        if (fields.length != 5 || !fields[1].equals("1") || !fields[4].equals(counterKey)) {
          continue;
        }
        long window = Long.parseLong(fields[0]);
        admitted.computeIfAbsent(window, w -> new long[replicas])[r] += Long.parseLong(fields[2]);
        refused.merge(window, Long.parseLong(fields[3]), Long::sum);
      }
    }
    List<Window> judged = new ArrayList<>();
    int unreached = 0;
    long firstWhole = Math.floorDiv(fromEpochNanos, SECOND) + 1;
    long lastWhole = Math.floorDiv(toEpochNanos, SECOND) - 1;
    for (long w = firstWhole; w <= lastWhole; w++) {
      long refusedIn = refused.getOrDefault(w, 0L);
      if (refusedIn == 0) {
        unreached++;
        continue;
      }
      List<Long> byReplica = new ArrayList<>();
      for (long a : admitted.getOrDefault(w, new long[replicas])) {
        byReplica.add(a);
      }
      judged.add(new Window(w, List.copyOf(byReplica), refusedIn));
    }
    return new Result(limit, judged, unreached);
  }
}
