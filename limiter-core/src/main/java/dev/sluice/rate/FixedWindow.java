package dev.sluice.rate;

/**
 * Fixed window counter: one atomic counter per key and window, no lock.
 *
 * <p>Windows are aligned to the limiter's creation, {@code [origin + n x period, origin + (n+1) x
 * period)}. The state is one long packing the window number (low 32 bits, enough to tell the
 * current window from any window an unexpired key can hold) and the count (high 32 bits), so a
 * new window and its first count are set by the same CAS. The trade-off: a client may spend the
 * whole limit at the end of one window and again at the start of the next, up to twice the limit
 * within one period.
 */
final class FixedWindow implements RateAlgorithm<LongState> {

  static final long MAX_LIMIT = 0xFFFF_FFFFL;
  private static final long WINDOW_MASK = 0xFFFF_FFFFL;

  private final long limit;
  private final long periodNanos;
  private final long origin;

  FixedWindow(RateLimit rateLimit, long origin) {
    if (rateLimit.limit() > MAX_LIMIT) {
      throw new IllegalArgumentException(
          "fixed-window limit must be <= " + MAX_LIMIT + " but was " + rateLimit.limit());
    }
    this.limit = rateLimit.limit();
    this.periodNanos = LimitArithmetic.periodNanos(rateLimit);
    this.origin = origin;
  }

  @Override
  public LongState newState(long now) {
    return new LongState(window(now));
  }

  @Override
  public boolean decide(LongState state, long now, long cost, RateOutcome into) {
    long window = window(now);
    long untilNextWindow = periodNanos - Math.floorMod(now - origin, periodNanos);
    while (true) {
      long packed = state.get();
      long count = (packed & WINDOW_MASK) == window ? packed >>> 32 : 0;
      if (cost > limit - count) {
        long retryAfter = cost > limit ? Long.MAX_VALUE : untilNextWindow;
        return into.reject(limit, retryAfter, count == 0 ? 0 : untilNextWindow);
      }
      long newCount = count + cost;
      if (state.compareAndSet(packed, newCount << 32 | window)) {
        return into.allow(limit, limit - newCount, untilNextWindow);
      }
    }
  }

  @Override
  public void refund(LongState state, long now, long cost) {
    long window = window(now);
    while (true) {
      long packed = state.get();
      // a refund for a window that has ended has nothing left to give back
      if ((packed & WINDOW_MASK) != window || packed >>> 32 == 0) {
        return;
      }
      long newCount = Math.max(0, (packed >>> 32) - cost);
      if (state.compareAndSet(packed, newCount << 32 | window)) {
        return;
      }
    }
  }

  @Override
  public long nanosUntilFull(LongState state, long now) {
    return untilFull(state.get(), now);
  }

  @Override
  public boolean retireIfFullFor(LongState state, long now, long graceNanos) {
    return state.retireIf(packed -> untilFull(packed, now) <= -graceNanos);
  }

  private long untilFull(long packed, long now) {
    if (packed >>> 32 == 0) {
      return ALWAYS_FULL;
    }
    // the count is spent when its window ends; windows are told apart modulo 2^32 (maxIdleNanos)
    long windowsAgo = (window(now) - packed) & WINDOW_MASK;
    long untilNextWindow = periodNanos - Math.floorMod(now - origin, periodNanos);
    if (windowsAgo > (Long.MAX_VALUE / 4) / periodNanos) {
      return ALWAYS_FULL;
    }
    return untilNextWindow - windowsAgo * periodNanos;
  }

  /** A key idle for 2^31 windows would see its window number again (it is kept modulo 2^32). */
  @Override
  public long maxIdleNanos() {
    return periodNanos > Long.MAX_VALUE >> 31 ? Long.MAX_VALUE : periodNanos << 31;
  }

  @Override
  public long nanosUntilFull() {
    return periodNanos;
  }

  private long window(long now) {
    return Math.floorDiv(now - origin, periodNanos) & WINDOW_MASK;
  }
}
