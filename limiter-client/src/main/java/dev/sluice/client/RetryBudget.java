package dev.sluice.client;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Bounds retries to a fraction of requests (as Finagle's and Linkerd's retry budgets do; what
 * resilience4j#172 asks for): every first attempt deposits {@code ratio} of a retry, every retry
 * withdraws one. A reserve of {@code minRetries} lets a client that has sent little still retry a
 * few times; the balance never grows past {@code max(minRetries, 1000 x ratio)}, so a long calm
 * spell does not bank enough retries to turn the next outage into a retry storm.
 *
 * <p>Over any run, retries are at most {@code minRetries + ratio x requests}. Thread-safe, lock-free.
 */
public final class RetryBudget {

  private static final long SCALE = 1_000_000; // micro-retries: ratios like 0.1 are exact

  private final long depositPerRequest;
  private final long cap;
  private final AtomicLong balance;

  /**
   * @param ratio retries allowed per request, in [0, 1]
   * @param minRetries retries allowed before any request has deposited, >= 0
   */
  public RetryBudget(double ratio, int minRetries) {
    if (!(ratio >= 0 && ratio <= 1)) {
      throw new IllegalArgumentException("retry budget ratio must be in [0, 1] but was " + ratio);
    }
    if (minRetries < 0) {
      throw new IllegalArgumentException(
          "retry budget minRetries must be >= 0 but was " + minRetries);
    }
    this.depositPerRequest = Math.round(ratio * SCALE);
    this.cap = Math.max(minRetries, Math.round(1000 * ratio)) * SCALE;
    this.balance = new AtomicLong(minRetries * SCALE);
  }

  /** A first attempt was sent: deposit its share of a retry. */
  public void onRequest() {
    balance.getAndUpdate(b -> Math.min(cap, b + depositPerRequest));
  }

  /** Withdraws one retry; false (and nothing withdrawn) when the budget cannot pay for it. */
  public boolean tryRetry() {
    while (true) {
      long b = balance.get();
      if (b < SCALE) {
        return false;
      }
      if (balance.compareAndSet(b, b - SCALE)) {
        return true;
      }
    }
  }

  /** Whole retries the budget could pay for now. */
  public long available() {
    return balance.get() / SCALE;
  }
}
