package dev.sluice.concurrency.limit;

/** A limit that changes only when told to: {@link LimitSource#fixed(int)}. */
public final class FixedLimit implements LimitSource {

  private volatile int limit;

  FixedLimit(int limit) {
    setLimit(limit);
  }

  @Override
  public int limit() {
    return limit;
  }

  @Override
  public void setLimit(int limit) {
    this.limit = AdaptiveLimit.requireAtLeast("maxConcurrency", limit, 1);
  }
}
