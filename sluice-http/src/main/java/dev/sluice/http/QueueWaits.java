package dev.sluice.http;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.time.NanoClock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Recent queue waits per limiter, for the live page's p99: a log-linear histogram (four buckets
 * per power of two of microseconds, so a reported quantile is within 25 % above the true one) over
 * the last one to two windows of {@link #WINDOW_NANOS}. The core's snapshot has only mean and max,
 * and Micrometer's percentiles exist only when the user binds a registry.
 *
 * <p>Only callers that waited are recorded: one array increment on the listener's thread, no lock.
 * A window turns over when read; a sample racing the turn may land in the window being dropped,
 * which a once-a-second display can afford.
 *
 * <pre>{@code
 * QueueWaits waits = new QueueWaits(NanoClock.system());
 * ConcurrencyListener listener = QueueWaits.both(metrics, waits);
 * }</pre>
 */
public final class QueueWaits implements ConcurrencyListener {

  static final long WINDOW_NANOS = 10_000_000_000L;
  static final int BUCKETS = 248;

  private final NanoClock clock;
  private final Map<String, Window> windows = new ConcurrentHashMap<>();

  /** Waits timed by {@code clock}. */
  public QueueWaits(NanoClock clock) {
    this.clock = clock;
  }

  /** Both listeners, in order; the core takes one. */
  public static ConcurrencyListener both(ConcurrencyListener a, ConcurrencyListener b) {
    return new ConcurrencyListener() {
      @Override
      public void onAdmitted(String limiter, long queuedNanos) {
        a.onAdmitted(limiter, queuedNanos);
        b.onAdmitted(limiter, queuedNanos);
      }

      @Override
      public void onQueued(String limiter) {
        a.onQueued(limiter);
        b.onQueued(limiter);
      }

      // the limiter calls the four-argument form: forward that one, or a listener that
      // overrides only it (the metrics binder) never hears of a rejection
      @Override
      public void onRejected(
          String limiter, Outcome outcome, RejectionReason reason, long waitedNanos) {
        a.onRejected(limiter, outcome, reason, waitedNanos);
        b.onRejected(limiter, outcome, reason, waitedNanos);
      }

      @Override
      public void onReleased(String limiter, long serviceNanos) {
        a.onReleased(limiter, serviceNanos);
        b.onReleased(limiter, serviceNanos);
      }
    };
  }

  @Override
  public void onAdmitted(String limiter, long queuedNanos) {
    if (queuedNanos > 0) {
      record(limiter, queuedNanos);
    }
  }

  @Override
  public void onRejected(String limiter, Outcome outcome, long waitedNanos) {
    if (waitedNanos > 0) {
      record(limiter, waitedNanos);
    }
  }

  private void record(String limiter, long nanos) {
    windows
        .computeIfAbsent(limiter, n -> new Window(clock.nanoTime()))
        .current
        .incrementAndGet(bucket(nanos / 1_000));
  }

  /**
   * The p99 of the recent waits in milliseconds (a bucket's upper bound), or -1 when nobody
   * waited recently.
   */
  public double p99Millis(String limiter) {
    Window w = windows.get(limiter);
    if (w == null) {
      return -1;
    }
    long now = clock.nanoTime();
    synchronized (w) { // readers only: one dashboard poll at a time turns the window
      if (now - w.started >= WINDOW_NANOS) {
        w.previous = w.current;
        w.current = new AtomicLongArray(BUCKETS);
        w.started = now;
      }
    }
    long[] counts = new long[BUCKETS];
    long total = 0;
    for (int i = 0; i < BUCKETS; i++) {
      counts[i] = w.current.get(i) + w.previous.get(i);
      total += counts[i];
    }
    if (total == 0) {
      return -1;
    }
    long rank = (long) Math.ceil(total * 0.99);
    long seen = 0;
    for (int i = 0; i < BUCKETS; i++) {
      seen += counts[i];
      if (seen >= rank) {
        return upperMicros(i) / 1000.0;
      }
    }
    return upperMicros(BUCKETS - 1) / 1000.0;
  }

  /** 0..3 µs exactly, then four buckets per power of two. */
  static int bucket(long micros) {
    if (micros < 4) {
      return (int) Math.max(0, micros);
    }
    int exp = 63 - Long.numberOfLeadingZeros(micros);
    int sub = (int) ((micros >>> (exp - 2)) & 3);
    return Math.min(BUCKETS - 1, exp * 4 + sub - 4);
  }

  /** The smallest value above every value of the bucket. */
  static long upperMicros(int bucket) {
    if (bucket < 4) {
      return bucket + 1L;
    }
    int exp = (bucket + 4) / 4;
    int sub = (bucket + 4) % 4;
    return (long) (5 + sub) << (exp - 2);
  }

  private static final class Window {
    volatile AtomicLongArray current = new AtomicLongArray(BUCKETS);
    volatile AtomicLongArray previous = new AtomicLongArray(BUCKETS);
    long started;

    Window(long started) {
      this.started = started;
    }
  }
}
