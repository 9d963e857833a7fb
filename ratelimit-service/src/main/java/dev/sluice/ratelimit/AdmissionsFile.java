package dev.sluice.ratelimit;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.time.NanoClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * What this replica itself admitted and refused, per counter and fixed window, appended to a file
 * ({@code sluice.ratelimit-service.admissions-file}) once each window has ended: one line per
 * counter and window, {@code <window start, epoch second> <unit, seconds> <admitted hits> <refused
 * hits> <counter key>}. Summed over the replicas' files, a window's admitted hits show whether the
 * replicas together admitted exactly the limit, without the attribution an observer of the answers
 * needs at a window's edge. A decision that completes after its window was written adds another
 * line for the same window: readers sum the lines. Only envoy/ratelimit's fixed windows are
 * recorded; a descriptor counted by another algorithm has no window to name.
 */
final class AdmissionsFile implements Counters {

  private static final System.Logger LOG = System.getLogger(AdmissionsFile.class.getName());

  private final Counters counters;
  private final Path file;
  private final NanoClock epochClock;
  // merged and removed atomically, so a decision completing while its window is written lands
  // either in that line or in a later one, never in neither
  private final Map<Window, Tally> windows = new ConcurrentHashMap<>();
  private final ScheduledExecutorService writer;

  private record Window(long start, long unitSeconds, String key) {}

  private record Tally(long admitted, long refused) {
    Tally plus(Tally other) {
      return new Tally(admitted + other.admitted, refused + other.refused);
    }
  }

  private AdmissionsFile(
      Counters counters, Path file, NanoClock epochClock, ScheduledExecutorService writer) {
    this.counters = counters;
    this.file = file;
    this.epochClock = epochClock;
    this.writer = writer;
  }

  /**
   * Records what {@code counters} decide into {@code file}; the windows that ended are written
   * every second on a daemon thread, and all that are left when closed.
   *
   * @param epochClock nanoseconds since the Unix epoch: when a window has ended
   */
  static AdmissionsFile writingEverySecond(Counters counters, Path file, NanoClock epochClock) {
    ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "ratelimit-service-admissions");
      t.setDaemon(true);
      return t;
    });
    AdmissionsFile admissions = new AdmissionsFile(counters, file, epochClock, writer);
    // a write never throws (see writeEnded); were one to, the schedule would stop
    var unused = writer.scheduleWithFixedDelay(admissions::writeEnded, 1, 1, TimeUnit.SECONDS);
    return admissions;
  }

  /** Records into {@code file}; nothing is written until {@link #writeEnded} or {@link #close}. */
  static AdmissionsFile writtenOnDemand(Counters counters, Path file, NanoClock epochClock) {
    return new AdmissionsFile(counters, file, epochClock, null);
  }

  @Override
  public CompletionStage<List<RateDecision>> take(List<Hit> hits, long epochSecond) {
    return counters.take(hits, epochSecond).thenApply(decisions -> {
      for (int i = 0; i < decisions.size(); i++) {
        Hit hit = hits.get(i);
        if (recorded(hit)) {
          add(
              hit,
              epochSecond,
              decisions.get(i).allowed() ? new Tally(hit.hits(), 0) : new Tally(0, hit.hits()));
        }
      }
      return decisions;
    });
  }

  @Override
  public CompletionStage<Void> giveBack(List<Hit> hits, long epochSecond) {
    // a check's hit is given back whatever its answer; any other was admitted and is no more
    for (Hit hit : hits) {
      if (recorded(hit)) {
        add(hit, epochSecond, new Tally(-hit.hits(), 0));
      }
    }
    return counters.giveBack(hits, epochSecond);
  }

  /** A fixed window's hit that counts (a check's hit is given back: neither admitted nor refused). */
  private static boolean recorded(Hit hit) {
    return hit.algorithm() == Algorithm.FIXED_WINDOW && !hit.check();
  }

  private void add(Hit hit, long epochSecond, Tally tally) {
    windows.merge(
        new Window(
            StoreCounters.windowStart(epochSecond, hit.unit()), hit.unit().seconds(), hit.key()),
        tally,
        Tally::plus);
  }

  /**
   * Appends the windows that ended at least a second before the clock's now (the decisions still
   * under way when a window ends are most likely in its line then); a failed write is logged, not
   * thrown.
   */
  void writeEnded() {
    write(Math.floorDiv(epochClock.nanoTime(), 1_000_000_000L) - 1);
  }

  private synchronized void write(long nowEpochSecond) {
    List<String> lines = new ArrayList<>();
    for (Window w : List.copyOf(windows.keySet())) {
      if (w.start() + w.unitSeconds() <= nowEpochSecond) {
        Tally tally = windows.remove(w);
        if (tally != null && (tally.admitted() != 0 || tally.refused() != 0)) {
          lines.add(w.start() + " " + w.unitSeconds() + " " + tally.admitted() + " "
              + tally.refused() + " " + w.key());
        }
      }
    }
    if (lines.isEmpty()) {
      return;
    }
    try {
      Files.write(
          file,
          lines,
          StandardCharsets.UTF_8,
          StandardOpenOption.CREATE,
          StandardOpenOption.APPEND);
    } catch (IOException | UncheckedIOException e) {
      LOG.log(System.Logger.Level.WARNING, "cannot append to the admissions file " + file, e);
    }
  }

  @Override
  public String describe() {
    return counters.describe() + ", admissions written to " + file;
  }

  /** Stops the writer, appends every window still held (ended or not) and closes the counters. */
  @Override
  public void close() {
    if (writer != null) {
      writer.shutdownNow();
    }
    try {
      write(Long.MAX_VALUE);
    } finally {
      counters.close();
    }
  }
}
