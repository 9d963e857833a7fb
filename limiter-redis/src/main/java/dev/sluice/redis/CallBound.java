package dev.sluice.redis;

import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How long one call to Redis may take: {@code sluice.redis.timeout}, except while the node starts.
 *
 * <p>A node that starts under load is slow itself: its JIT compiles the request path, its event loop
 * shares two cores with a burst of requests and another starting node. Its first calls then miss a
 * 50 ms timeout although Redis answers at once (a PING of 231 ms in the first two seconds of two
 * demo nodes, 90 decisions on local shares, 3 jobs running for a limit of 2). So start-up has its
 * own allowance: until {@link #WARM_ANSWERS} decisions were answered within the timeout, and for
 * at most {@link #START_ALLOWANCE} after the first decision, a call may take as long as a connect
 * may ({@code sluice.redis.connect-timeout}, 1 s by default) before it counts as failed. It is
 * counted from the first decision, not from opening: a node opens its store early in its start-up,
 * often many seconds before requests reach it, and the background polls before them are no sign
 * of a warm request path. A Redis that is down is still found at once (a refused connection fails
 * every call immediately), one that is far away once the allowance ends.
 */
final class CallBound {

  /** Decisions answered in time after which the node counts as started. */
  static final int WARM_ANSWERS = 1_000;

  /** The longest start-up allowance, from the first decision. */
  static final Duration START_ALLOWANCE = Duration.ofSeconds(10);

  /** {@link #firstDecision} before any decision was asked for. */
  private static final long NONE = Long.MIN_VALUE;

  private final long decisionNanos;
  private final long startNanos;
  private final AtomicLong firstDecision = new AtomicLong(NONE);
  private final AtomicInteger inTime = new AtomicInteger();
  private volatile boolean started;
  private final NanoClock ticker;

  CallBound(StoreSettings settings) {
    this(settings, NanoClock.system());
  }

  /** {@code ticker}: the time the allowance runs on (a virtual one in tests). */
  CallBound(StoreSettings settings, NanoClock ticker) {
    this.decisionNanos = settings.timeout().toNanos();
    this.startNanos = Math.max(decisionNanos, settings.connectTimeout().toNanos());
    this.ticker = ticker;
  }

  /** The bound on a call sent now. */
  long nanos() {
    if (started) {
      return decisionNanos;
    }
    long first = firstDecision.get();
    if (first != NONE && ticker.nanoTime() - first - START_ALLOWANCE.toNanos() >= 0) {
      started = true;
      return decisionNanos;
    }
    return startNanos;
  }

  /** {@code sluice.redis.timeout}, whatever the allowance. */
  long decisionNanos() {
    return decisionNanos;
  }

  /** A decision goes to Redis (the allowance runs from the first). */
  void deciding() {
    if (!started && firstDecision.get() == NONE) {
      firstDecision.compareAndSet(NONE, ticker.nanoTime());
    }
  }

  /** A decision was answered after {@code tookNanos}. */
  void answered(long tookNanos) {
    if (!started && tookNanos <= decisionNanos && inTime.incrementAndGet() >= WARM_ANSWERS) {
      started = true;
    }
  }

  /** Ends the allowance now: the node counts as started (tests of a node past its start-up). */
  void started() {
    started = true;
  }
}
