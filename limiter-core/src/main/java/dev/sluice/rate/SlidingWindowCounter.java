package dev.sluice.rate;

/**
 * Sliding window counter (Cloudflare's estimate): the count of the current fixed window plus the
 * previous window's count weighted by how much of it still overlaps the sliding window.
 *
 * <p>Three numbers per key (window, current, previous) change together when a window rolls, more
 * than one CAS can cover, so each key's state is guarded by its own monitor; the critical section is
 * a few arithmetic operations and contention only arises on one hot key. The estimate assumes the
 * previous window's requests were spread evenly; its error is measured in the README.
 */
final class SlidingWindowCounter implements RateAlgorithm<SlidingWindowCounter.Counts> {

  /** One key's counts; guarded by its own monitor. */
  static final class Counts extends KeyState {
    private long window;
    private long current;
    private long previous;

    Counts(long window) {
      this.window = window;
    }

    private void rollTo(long newWindow) {
      if (newWindow != window) {
        previous = newWindow - window == 1 ? current : 0;
        current = 0;
        window = newWindow;
      }
    }
  }

  private final long limit;
  private final long periodNanos;
  private final long origin;

  SlidingWindowCounter(RateLimit rateLimit, long origin) {
    this.limit = rateLimit.limit();
    this.periodNanos = LimitArithmetic.periodNanos(rateLimit);
    this.origin = origin;
  }

  @Override
  public Counts newState(long now) {
    return new Counts(Math.floorDiv(now - origin, periodNanos));
  }

  @Override
  public boolean decide(Counts counts, long now, long cost, RateOutcome into) {
    long sinceOrigin = now - origin;
    long intoWindow = Math.floorMod(sinceOrigin, periodNanos);
    long untilNextWindow = periodNanos - intoWindow;
    synchronized (counts) {
      double estimate = estimate(counts, now);
      long resetAfter = counts.current > 0
          ? untilNextWindow + periodNanos
          : counts.previous > 0 ? untilNextWindow : 0;
      if (estimate + cost > limit) {
        return into.reject(limit, retryAfter(counts, cost, intoWindow), resetAfter);
      }
      counts.current += cost;
      long remaining = (long) Math.max(0, Math.floor(limit - estimate - cost));
      return into.allow(limit, remaining, untilNextWindow + periodNanos);
    }
  }

  /** The estimated permits in the sliding period ending at {@code now}: current + previous x overlap. */
  double estimate(Counts counts, long now) {
    long sinceOrigin = now - origin;
    long untilNextWindow = periodNanos - Math.floorMod(sinceOrigin, periodNanos);
    synchronized (counts) {
      counts.rollTo(Math.floorDiv(sinceOrigin, periodNanos));
      return counts.previous * ((double) untilNextWindow / periodNanos) + counts.current;
    }
  }

  /** When the estimate will have decayed enough for {@code cost} more, assuming no other traffic. */
  private long retryAfter(Counts counts, long cost, long intoWindow) {
    if (cost > limit) {
      return Long.MAX_VALUE;
    }
    if (counts.current + cost <= limit) {
      // still this window: wait until previous x weight <= limit - current - cost
      double room = limit - counts.current - cost;
      long at = (long) Math.ceil(periodNanos - room * periodNanos / counts.previous);
      return Math.max(1, at - intoWindow);
    }
    // the current count becomes the previous one; wait in the next window for its weight to drop
    double room = limit - cost;
    long at = (long) Math.ceil(periodNanos - room * periodNanos / counts.current);
    return periodNanos - intoWindow + Math.max(0, at);
  }

  @Override
  public void refund(Counts counts, long now, long cost) {
    long window = Math.floorDiv(now - origin, periodNanos);
    synchronized (counts) {
      // the refunded permits were counted in this window or, if it rolled since, in the previous
      // one
      if (window == counts.window) {
        if (counts.current > 0) {
          counts.current = Math.max(0, counts.current - cost);
        } else {
          counts.previous = Math.max(0, counts.previous - cost);
        }
      } else if (window == counts.window + 1) {
        counts.rollTo(window);
        counts.previous = Math.max(0, counts.previous - cost);
      }
    }
  }

  @Override
  public long nanosUntilFull(Counts counts, long now) {
    synchronized (counts) {
      return untilFull(counts, now);
    }
  }

  @Override
  public boolean retireIfFullFor(Counts counts, long now, long graceNanos) {
    // under the monitor a decision cannot interleave: it either came first and is judged here, or
    // comes after and sees the state retired
    synchronized (counts) {
      return untilFull(counts, now) <= -graceNanos
          && counts.beginRetiring()
          && counts.completeRetiring();
    }
  }

  private long untilFull(Counts counts, long now) {
    if (counts.current == 0 && counts.previous == 0) {
      return ALWAYS_FULL;
    }
    // a count weighs until the end of the window after its own; the previous one until its own ends
    long fullWindow = counts.current > 0 ? counts.window + 2 : counts.window + 1;
    long windowsAhead = fullWindow - Math.floorDiv(now - origin, periodNanos);
    if (windowsAhead < -((Long.MAX_VALUE / 4) / periodNanos)) {
      return ALWAYS_FULL;
    }
    return windowsAhead * periodNanos - Math.floorMod(now - origin, periodNanos);
  }

  @Override
  public long nanosUntilFull() {
    // the previous window still weighs until the end of the window after it
    return 2 * periodNanos;
  }
}
