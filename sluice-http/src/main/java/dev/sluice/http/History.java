package dev.sluice.http;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.limit.CpuSampler;
import dev.sluice.config.CpuSignals;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.List;

/**
 * The live page's series, kept by a door (while its page is on) so that a page opened during an
 * incident shows the minutes before it: every {@link #RESOLUTION} (on the door's scheduler, never
 * per request) one
 * point of each limiter's in flight, queued, limit and refusals in that interval, and the CPU of
 * the machine and of this process, each read by a sampler of its own (so no CPU limit's samples
 * are shortened). A ring of {@link #POINTS} points: the last five minutes, oldest overwritten.
 *
 * <p>Memory is fixed when built: 16 bytes a point for the time and the two CPUs, 16 more a point
 * per limiter, so 4.7 KiB plus 4.7 KiB per limiter for 300 points. Written into the status as
 * columns ({@code "history":{"time":[..],"machineCpu":[..],..}}); a point not measured is null.
 *
 * <pre>{@code
 * History history = new History(limiters, CpuSignals.JVM, NanoClock.system(),
 *     History.RESOLUTION, History.POINTS);
 * history.start(Scheduler.system());
 * }</pre>
 */
public final class History implements AutoCloseable {

  /** Time between two points: the page's poll interval. */
  public static final Duration RESOLUTION = Duration.ofSeconds(1);

  /** Points kept: five minutes at {@link #RESOLUTION}. */
  public static final int POINTS = 300;

  private final List<ConcurrencyLimiter> limiters;
  private final CpuSampler machine;
  private final CpuSampler process;
  private final NanoClock clock;
  private final long resolutionNanos;
  private final int capacity;

  // the ring, guarded by this: the sampler writes once a resolution, a status read copies it out
  private final long[] times;
  private final float[] machineCpu;
  private final float[] processCpu;
  private final int[][] inFlight; // [limiter][point]
  private final int[][] queued;
  private final int[][] limit;
  private final int[][] refused;
  private final long[] refusedBefore; // per limiter: the total at the previous point
  private int next; // where the next point goes
  private int size;
  private Scheduler.Cancellable task;
  private boolean closed;

  /**
   * A ring of {@code capacity} points, one every {@code resolution}, for {@code limiters}.
   *
   * @param cpu the signals of the machine's and this process's CPU
   * @param clock the clock the points are placed by
   */
  public History(
      List<ConcurrencyLimiter> limiters,
      CpuSignals cpu,
      NanoClock clock,
      Duration resolution,
      int capacity) {
    if (capacity < 1 || resolution.isNegative() || resolution.isZero()) {
      throw new IllegalArgumentException(
          "capacity must be >= 1 and resolution > 0 but were " + capacity + ", " + resolution);
    }
    this.limiters = List.copyOf(limiters);
    this.machine = cpu.machine().newSampler();
    this.process = cpu.process().newSampler();
    this.clock = clock;
    this.resolutionNanos = resolution.toNanos();
    this.capacity = capacity;
    int n = this.limiters.size();
    times = new long[capacity];
    machineCpu = new float[capacity];
    processCpu = new float[capacity];
    inFlight = new int[n][capacity];
    queued = new int[n][capacity];
    limit = new int[n][capacity];
    refused = new int[n][capacity];
    refusedBefore = new long[n];
    for (int i = 0; i < n; i++) {
      refusedBefore[i] = refusedTotal(this.limiters.get(i).snapshot());
    }
    machine.sample(); // the first reading only starts each sampler's interval
    process.sample();
  }

  /** Samples every resolution on {@code scheduler} until {@link #close()}. */
  public synchronized void start(Scheduler scheduler) {
    if (task == null && !closed) {
      task = scheduler.every(resolutionNanos, this::sample);
    }
  }

  /** Takes one point now. */
  public void sample() {
    double m = machine.sample();
    double p = process.sample();
    int n = limiters.size();
    ConcurrencySnapshot[] snapshots = new ConcurrencySnapshot[n];
    for (int i = 0; i < n; i++) {
      snapshots[i] = limiters.get(i).snapshot(); // outside the lock: it reads atomics
    }
    long now = clock.nanoTime();
    synchronized (this) {
      int at = next;
      times[at] = now;
      machineCpu[at] = (float) m;
      processCpu[at] = (float) p;
      for (int i = 0; i < n; i++) {
        ConcurrencySnapshot s = snapshots[i];
        inFlight[i][at] = s.inFlight();
        queued[i][at] = s.queued();
        limit[i][at] = s.limit();
        long total = refusedTotal(s);
        refused[i][at] = (int) Math.min(Integer.MAX_VALUE, Math.max(0, total - refusedBefore[i]));
        refusedBefore[i] = total;
      }
      next = (at + 1) % capacity;
      size = Math.min(capacity, size + 1);
    }
  }

  /** The machine's CPU at the last point, 0-1; NaN before the first or when not measured. */
  public synchronized double machineCpu() {
    return size == 0 ? Double.NaN : rounded(machineCpu[(next - 1 + capacity) % capacity]);
  }

  /** This process's CPU at the last point, 0-1; NaN before the first or when not measured. */
  public synchronized double processCpu() {
    return size == 0 ? Double.NaN : rounded(processCpu[(next - 1 + capacity) % capacity]);
  }

  /** Points held now (at most the capacity). */
  public synchronized int size() {
    return size;
  }

  /**
   * Writes {@code "history":{..}}: the resolution and window, then each series as an array, oldest
   * first; {@code time} is each point's wall-clock time in milliseconds, placed from {@code
   * epochMillis} (the status's time) by the monotonic clock.
   */
  public void write(JsonWriter w, long epochMillis) {
    long now = clock.nanoTime();
    synchronized (this) {
      int first = (next - size + capacity) % capacity;
      w.name("history")
          .beginObject()
          .member("resolutionMillis", resolutionNanos / 1_000_000)
          .member("windowMillis", resolutionNanos / 1_000_000 * capacity);
      w.name("time").beginArray();
      for (int k = 0; k < size; k++) {
        long ageNanos = now - times[(first + k) % capacity]; // a difference: safe across overflow
        w.value(epochMillis - Math.round(ageNanos / 1e6));
      }
      w.endArray();
      floats(w, "machineCpu", machineCpu, first);
      floats(w, "processCpu", processCpu, first);
      w.name("limiters").beginObject();
      for (int i = 0; i < limiters.size(); i++) {
        w.name(limiters.get(i).name()).beginObject();
        ints(w, "inFlight", inFlight[i], first);
        ints(w, "queued", queued[i], first);
        ints(w, "limit", limit[i], first);
        ints(w, "refused", refused[i], first);
        w.endObject();
      }
      w.endObject().endObject();
    }
  }

  private void floats(JsonWriter w, String name, float[] series, int first) {
    w.name(name).beginArray();
    for (int k = 0; k < size; k++) {
      w.value(rounded(series[(first + k) % capacity]));
    }
    w.endArray();
  }

  private void ints(JsonWriter w, String name, int[] series, int first) {
    w.name(name).beginArray();
    for (int k = 0; k < size; k++) {
      w.value(series[(first + k) % capacity]);
    }
    w.endArray();
  }

  /** Three decimals (a tenth of a percent): what a float holds, and a short document. */
  private static double rounded(float v) {
    return Float.isNaN(v) ? Double.NaN : Math.round(v * 1000.0) / 1000.0;
  }

  /** Requests turned away: queue full (finer reasons included), timed out, shut down. */
  private static long refusedTotal(ConcurrencySnapshot s) {
    return s.rejectedQueueFull() + s.rejectedQueueTimeout() + s.rejectedShutdown();
  }

  @Override
  public synchronized void close() {
    closed = true;
    if (task != null) {
      task.cancel();
    }
  }
}
