package dev.sluice.concurrency;

/** A limit that changes only when told to. */
final class FixedLimit implements LimitSource {

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
    this.limit = LimiterBuilder.requireAtLeast("maxConcurrency", limit, 1);
  }
}
