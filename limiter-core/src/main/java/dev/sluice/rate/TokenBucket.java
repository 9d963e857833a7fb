package dev.sluice.rate;

/**
 * Token bucket with greedy (continuous) refill, computed lazily from one timestamp per key.
 *
 * <p>The state is the single long {@code fullAt}: the moment the bucket will be full again. The
 * tokens at {@code now} are {@code capacity - (fullAt - now) * rate}, so no refill ever runs and
 * an update is one CAS. To be exact like Bucket4j (which keeps a separate "rounding error" so that
 * 3 tokens per second lose no fractions), time is kept in <em>units</em>: with {@code g =
 * gcd(limit, periodNanos)}, a nanosecond is {@code limit / g} units and a token is {@code
 * periodNanos / g} units, both integers, so every refill and every take is exact. Scaled times are
 * compared by difference modulo 2^64; {@link #maxIdleNanos()} bounds the idle expiry so that a
 * difference never wraps.
 *
 * <p>When even the reduced numbers would overflow, a token is rounded up to whole nanoseconds
 * (refilling a hair slower, never faster).
 */
final class TokenBucket implements RateAlgorithm<LongState> {

  private static final long MAX_UNITS_PER_NANO = 1024;

  private final long limit;
  private final long capacity;
  private final long unitsPerNano;
  private final long unitsPerToken;
  private final long capacityUnits;

  TokenBucket(RateLimit rateLimit) {
    long periodNanos = LimitArithmetic.periodNanos(rateLimit);
    long gcd = LimitArithmetic.gcd(rateLimit.limit(), periodNanos);
    long perNano = rateLimit.limit() / gcd;
    long perToken = periodNanos / gcd;
    // past 1024 units per nanosecond an idle key's scaled time would wrap after weeks rather than
    // centuries; such odd rates (e.g. 1031/s) lose a fraction of a nanosecond per token instead
    if (perNano > MAX_UNITS_PER_NANO
        || Math.multiplyHigh(rateLimit.burst(), perToken) != 0
        || rateLimit.burst() * perToken > LimitArithmetic.MAX_SPAN) {
      perNano = 1;
      perToken = LimitArithmetic.ceilDiv(periodNanos, rateLimit.limit());
    }
    this.limit = rateLimit.limit();
    this.capacity = rateLimit.burst();
    this.unitsPerNano = perNano;
    this.unitsPerToken = perToken;
    this.capacityUnits = LimitArithmetic.boundedProduct(
        capacity, perToken, "token-bucket capacity x period / limit", rateLimit);
  }

  @Override
  public LongState newState(long now) {
    return new LongState(now * unitsPerNano);
  }

  @Override
  public boolean decide(LongState state, long now, long cost, RateOutcome into) {
    long nowUnits = now * unitsPerNano;
    if (cost > capacity) {
      long deficit = Math.max(0, state.get() - nowUnits);
      return into.reject(limit, Long.MAX_VALUE, LimitArithmetic.ceilDiv(deficit, unitsPerNano));
    }
    long taken = cost * unitsPerToken;
    while (true) {
      long fullAt = state.get();
      long deficit = Math.max(0, fullAt - nowUnits);
      long after = deficit + taken;
      if (after > capacityUnits) {
        return into.reject(
            limit,
            LimitArithmetic.ceilDiv(after - capacityUnits, unitsPerNano),
            LimitArithmetic.ceilDiv(deficit, unitsPerNano));
      }
      if (state.compareAndSet(fullAt, nowUnits + after)) {
        return into.allow(
            limit,
            (capacityUnits - after) / unitsPerToken,
            LimitArithmetic.ceilDiv(after, unitsPerNano));
      }
    }
  }

  @Override
  public void refund(LongState state, long now, long cost) {
    long nowUnits = now * unitsPerNano;
    long given = Math.min(cost, capacity) * unitsPerToken;
    while (true) {
      long fullAt = state.get();
      long deficit = fullAt - nowUnits;
      if (deficit <= 0 || state.compareAndSet(fullAt, nowUnits + Math.max(0, deficit - given))) {
        return;
      }
    }
  }

  @Override
  public long nanosUntilFull(LongState state, long now) {
    return untilFull(state.get(), now * unitsPerNano);
  }

  @Override
  public boolean retireIfFullFor(LongState state, long now, long graceNanos) {
    long nowUnits = now * unitsPerNano;
    return state.retireIf(fullAt -> untilFull(fullAt, nowUnits) <= -graceNanos);
  }

  private long untilFull(long fullAtUnits, long nowUnits) {
    long ahead = fullAtUnits - nowUnits;
    // rounded towards "not full yet" both ways, so a state is never judged full early
    return ahead > 0 ? LimitArithmetic.ceilDiv(ahead, unitsPerNano) : ahead / unitsPerNano;
  }

  @Override
  public long nanosUntilFull() {
    return LimitArithmetic.ceilDiv(capacityUnits, unitsPerNano);
  }

  @Override
  public long maxIdleNanos() {
    return (Long.MAX_VALUE - capacityUnits) / unitsPerNano;
  }
}
