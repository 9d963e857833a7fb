package dev.sluice.rate;

/**
 * Generic cell rate algorithm (as in redis-gcra): one theoretical arrival time (TAT) per key.
 *
 * <p>Each permit advances the TAT by the emission interval {@code T = ceil(period / limit)}; a
 * request is allowed when its new TAT is at most {@code burst x T} ahead of now. Decisions match a
 * token bucket of capacity {@code burst}; the TAT is plain nanoseconds, with {@code T} rounded up
 * so rounding can only make it stricter. One CAS per decision.
 */
final class Gcra implements RateAlgorithm<LongState> {

  private final long limit;
  private final long burst;
  private final long interval;
  private final long burstOffset;

  Gcra(RateLimit rateLimit) {
    this.limit = rateLimit.limit();
    this.burst = rateLimit.burst();
    this.interval = LimitArithmetic.ceilDiv(LimitArithmetic.periodNanos(rateLimit), limit);
    this.burstOffset = LimitArithmetic.boundedProduct(
        burst, interval, "gcra burst x emission interval", rateLimit);
  }

  @Override
  public LongState newState(long now) {
    return new LongState(now);
  }

  @Override
  public boolean decide(LongState tat, long now, long cost, RateOutcome into) {
    if (cost > burst) {
      return into.reject(limit, Long.MAX_VALUE, Math.max(0, tat.get() - now));
    }
    long increment = cost * interval;
    while (true) {
      long current = tat.get();
      long ahead = Math.max(0, current - now);
      long newAhead = ahead + increment;
      if (newAhead > burstOffset) {
        return into.reject(limit, newAhead - burstOffset, ahead);
      }
      if (tat.compareAndSet(current, now + newAhead)) {
        return into.allow(limit, (burstOffset - newAhead) / interval, newAhead);
      }
    }
  }

  @Override
  public void refund(LongState tat, long now, long cost) {
    long given = Math.min(cost, burst) * interval;
    while (true) {
      long current = tat.get();
      long ahead = current - now;
      if (ahead <= 0 || tat.compareAndSet(current, now + Math.max(0, ahead - given))) {
        return;
      }
    }
  }

  @Override
  public long nanosUntilFull(LongState tat, long now) {
    return tat.get() - now;
  }

  @Override
  public boolean retireIfFullFor(LongState tat, long now, long graceNanos) {
    return tat.retireIf(value -> value - now <= -graceNanos);
  }

  /** The emission interval {@code T}: nanoseconds per permit, rounded up. */
  long interval() {
    return interval;
  }

  @Override
  public long nanosUntilFull() {
    return burstOffset;
  }
}
