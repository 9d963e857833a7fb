package dev.sluice.rate;

/**
 * Leaky bucket in nginx {@code limit_req} style, as a meter or as a shaper.
 *
 * <p>The bucket leaks one permit every {@code T = ceil(period / limit)} and holds {@code burst}
 * permits: the one being served at the steady rate and {@code burst - 1} in excess of it (nginx's
 * {@code burst=N} is a Sluice burst of {@code N + 1}). A request that would overflow the bucket is
 * rejected. The <em>meter</em> ({@code nodelay} in nginx) admits the others at once; the
 * <em>shaper</em> admits them with {@code delayNanos}, how long the caller should wait for its turn
 * so that the output leaves at the steady rate.
 *
 * <p>nginx keeps {@code excess} and {@code last}; the same information fits in the single long
 * {@code emptyAt}, the moment the bucket has leaked dry ({@code excess = emptyAt - now - T}). That
 * is exactly GCRA's theoretical arrival time (ITU-T I.371 defines GCRA as this continuous-state
 * leaky bucket), so the arithmetic is {@link Gcra}'s and this class adds the shaper's delay.
 */
final class LeakyBucket implements RateAlgorithm<LongState> {

  private final Gcra schedule;
  private final boolean shaping;

  LeakyBucket(RateLimit rateLimit, boolean shaping) {
    this.schedule = new Gcra(rateLimit);
    this.shaping = shaping;
  }

  @Override
  public LongState newState(long now) {
    return schedule.newState(now);
  }

  @Override
  public boolean decide(LongState emptyAt, long now, long cost, RateOutcome into) {
    if (!schedule.decide(emptyAt, now, cost, into) || !shaping) {
      return into.allowed();
    }
    // the bucket held resetAfter - cost x T before this request: that much must leak before its
    // turn
    into.delay(into.resetAfterNanos() - cost * schedule.interval());
    return true;
  }

  @Override
  public void refund(LongState emptyAt, long now, long cost) {
    schedule.refund(emptyAt, now, cost);
  }

  @Override
  public long nanosUntilFull(LongState emptyAt, long now) {
    return schedule.nanosUntilFull(emptyAt, now);
  }

  @Override
  public boolean retireIfFullFor(LongState emptyAt, long now, long graceNanos) {
    return schedule.retireIfFullFor(emptyAt, now, graceNanos);
  }

  @Override
  public long nanosUntilFull() {
    return schedule.nanosUntilFull();
  }
}
