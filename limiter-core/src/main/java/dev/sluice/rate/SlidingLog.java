package dev.sluice.rate;

/**
 * Sliding window log: remembers when each admitted permit was taken, so it is exact: no window of
 * one period ever holds more than {@code limit} permits.
 *
 * <p>The log is a ring of (time, permits) entries, oldest first; entries of the same instant are
 * merged, so it never holds more than {@code limit} entries and starts small. That is its
 * trade-off: up to 16 bytes per admitted request per key. Rejected requests are not logged. A key's
 * log is guarded by its own monitor because an append and the expiry of old entries change several
 * fields together.
 */
final class SlidingLog implements RateAlgorithm<SlidingLog.Log> {

  private static final int INITIAL_ENTRIES = 4;

  /** One key's log, a growable ring; guarded by its own monitor. */
  static final class Log extends KeyState {
    private long[] times;
    private long[] permits;
    private int head;
    private int size;
    private long total;

    Log(int capacity) {
      times = new long[capacity];
      permits = new long[capacity];
    }

    private int index(int offset) {
      return (head + offset) % times.length;
    }

    private void expire(long now, long periodNanos) {
      while (size > 0 && now - times[head] >= periodNanos) {
        total -= permits[head];
        head = index(1);
        size--;
      }
    }

    private void append(long now, long cost, long maxEntries) {
      if (size > 0 && times[index(size - 1)] == now) {
        permits[index(size - 1)] += cost;
        return;
      }
      if (size == times.length) {
        grow(maxEntries);
      }
      times[index(size)] = now;
      permits[index(size)] = cost;
      size++;
    }

    private void grow(long maxEntries) {
      int capacity = (int) Math.min(maxEntries, 2L * times.length);
      long[] newTimes = new long[capacity];
      long[] newPermits = new long[capacity];
      for (int i = 0; i < size; i++) {
        newTimes[i] = times[index(i)];
        newPermits[i] = permits[index(i)];
      }
      times = newTimes;
      permits = newPermits;
      head = 0;
    }
  }

  private final long limit;
  private final long periodNanos;

  SlidingLog(RateLimit rateLimit) {
    if (rateLimit.limit() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("sliding-log limit must be <= " + (Integer.MAX_VALUE - 8)
          + " but was " + rateLimit.limit());
    }
    this.limit = rateLimit.limit();
    this.periodNanos = LimitArithmetic.periodNanos(rateLimit);
  }

  @Override
  public Log newState(long now) {
    return new Log((int) Math.min(limit, INITIAL_ENTRIES));
  }

  @Override
  public boolean decide(Log log, long now, long cost, RateOutcome into) {
    synchronized (log) {
      log.expire(now, periodNanos);
      long resetAfter = log.size == 0 ? 0 : log.times[log.index(log.size - 1)] + periodNanos - now;
      if (cost > limit - log.total) {
        return into.reject(limit, retryAfter(log, now, cost), resetAfter);
      }
      log.append(now, cost, limit);
      log.total += cost;
      return into.allow(limit, limit - log.total, periodNanos);
    }
  }

  /** When enough of the oldest entries will have left the window to make room for {@code cost}. */
  private long retryAfter(Log log, long now, long cost) {
    if (cost > limit) {
      return Long.MAX_VALUE;
    }
    long toFree = log.total + cost - limit;
    long freed = 0;
    for (int i = 0; i < log.size; i++) {
      freed += log.permits[log.index(i)];
      if (freed >= toFree) {
        return log.times[log.index(i)] + periodNanos - now;
      }
    }
    throw new IllegalStateException("log total " + log.total + " disagrees with its entries");
  }

  @Override
  public void refund(Log log, long now, long cost) {
    synchronized (log) {
      long left = cost;
      while (left > 0 && log.size > 0) {
        int last = log.index(log.size - 1);
        long taken = Math.min(left, log.permits[last]);
        log.permits[last] -= taken;
        log.total -= taken;
        left -= taken;
        if (log.permits[last] == 0) {
          log.size--;
        }
      }
    }
  }

  @Override
  public long nanosUntilFull(Log log, long now) {
    synchronized (log) {
      return untilFull(log, now);
    }
  }

  @Override
  public boolean retireIfFullFor(Log log, long now, long graceNanos) {
    // under the monitor a decision cannot interleave: it either came first and is judged here, or
    // comes after and sees the state retired
    synchronized (log) {
      return untilFull(log, now) <= -graceNanos && log.beginRetiring() && log.completeRetiring();
    }
  }

  private long untilFull(Log log, long now) {
    // the newest entry is the last to leave the window; an empty log remembers nothing
    return log.size == 0 ? ALWAYS_FULL : log.times[log.index(log.size - 1)] + periodNanos - now;
  }

  @Override
  public long nanosUntilFull() {
    return periodNanos;
  }
}
