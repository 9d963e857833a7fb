package dev.sluice.rate;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Leaky bucket in nginx {@code limit_req} style, as a meter or as a shaper.
 *
 * <p>The bucket leaks one permit every {@code T = ceil(period / limit)}; the request being served
 * at the steady rate is not excess, and at most {@code burst} permits may be in excess of it. A
 * request whose excess would pass the burst is rejected. The <em>meter</em> ({@code nodelay} in
 * nginx) admits the others at once; the <em>shaper</em> admits them with {@code delayNanos}: how
 * long the caller should wait for its turn so that the output leaves at the steady rate.
 *
 * <p>nginx keeps {@code excess} and {@code last}; here the same information is the single long
 * {@code emptyAt} (the moment the bucket has leaked dry), so an update is one CAS:
 * {@code excess = emptyAt - now - T}.
 */
final class LeakyBucket implements RateAlgorithm<AtomicLong> {

  private final boolean shaping;
  private final long limit;
  private final long capacity;
  private final long interval;
  private final long capacityNanos;

  LeakyBucket(RateLimit rateLimit, boolean shaping) {
    this.shaping = shaping;
    this.limit = rateLimit.limit();
    // one permit being served plus the burst waiting behind it
    this.capacity = rateLimit.burst() + 1;
    this.interval = LimitArithmetic.ceilDiv(LimitArithmetic.periodNanos(rateLimit), limit);
    this.capacityNanos =
        LimitArithmetic.boundedProduct(capacity, interval, "leaky-bucket (burst + 1) x leak interval", rateLimit);
  }

  @Override
  public AtomicLong newState(long now) {
    return new AtomicLong(now);
  }

  @Override
  public RateDecision tryAcquire(AtomicLong emptyAt, long now, long cost) {
    if (cost > capacity) {
      return RateDecision.rejected(limit, Long.MAX_VALUE, Math.max(0, emptyAt.get() - now));
    }
    long added = cost * interval;
    while (true) {
      long current = emptyAt.get();
      long level = Math.max(0, current - now);
      long newLevel = level + added;
      if (newLevel > capacityNanos) {
        return RateDecision.rejected(limit, newLevel - capacityNanos, level);
      }
      if (emptyAt.compareAndSet(current, now + newLevel)) {
        return new RateDecision(
            true, limit, (capacityNanos - newLevel) / interval, 0, newLevel, shaping ? level : 0);
      }
    }
  }

  @Override
  public void refund(AtomicLong emptyAt, long now, long cost) {
    long given = Math.min(cost, capacity) * interval;
    while (true) {
      long current = emptyAt.get();
      long level = current - now;
      if (level <= 0 || emptyAt.compareAndSet(current, now + Math.max(0, level - given))) {
        return;
      }
    }
  }

  @Override
  public long nanosUntilFull() {
    return capacityNanos;
  }
}
