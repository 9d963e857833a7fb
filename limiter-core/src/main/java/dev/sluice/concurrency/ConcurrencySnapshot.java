package dev.sluice.concurrency;

import dev.sluice.concurrency.limit.LimitState;
import java.time.Duration;

/**
 * A point-in-time view of a limiter for metrics. Gauges ({@code limit} to {@code queued},
 * {@code shutdown}) are read together from one atomic word, so {@code inFlight} and {@code queued}
 * are consistent with each other; the counters are monotonic sums read one after another and may
 * be a few events apart from the gauges under load.
 *
 * <p>Queue-wait statistics cover every caller that left the queue, whatever the outcome; service
 * time is how long released permits were held. {@code limitState} tells where the limit comes
 * from and, for an adaptive limit, what it decides from (measured CPU or service time, target).
 */
public record ConcurrencySnapshot(
    String name,
    int limit,
    int maxQueue,
    Duration queueTimeout,
    int inFlight,
    int queued,
    long admitted,
    long queuedTotal,
    long rejectedQueueFull,
    long rejectedQueueTimeout,
    long cancelled,
    long rejectedShutdown,
    long queueWaitCount,
    long queueWaitTotalNanos,
    long queueWaitMaxNanos,
    long serviceCount,
    long serviceTotalNanos,
    long serviceMaxNanos,
    boolean shutdown,
    LimitState limitState) {

  /** A snapshot whose limit is fixed: {@code limitState} is {@link LimitState#fixed(int)}. */
  public ConcurrencySnapshot(
      String name,
      int limit,
      int maxQueue,
      Duration queueTimeout,
      int inFlight,
      int queued,
      long admitted,
      long queuedTotal,
      long rejectedQueueFull,
      long rejectedQueueTimeout,
      long cancelled,
      long rejectedShutdown,
      long queueWaitCount,
      long queueWaitTotalNanos,
      long queueWaitMaxNanos,
      long serviceCount,
      long serviceTotalNanos,
      long serviceMaxNanos,
      boolean shutdown) {
    this(name, limit, maxQueue, queueTimeout, inFlight, queued, admitted, queuedTotal,
        rejectedQueueFull, rejectedQueueTimeout, cancelled, rejectedShutdown, queueWaitCount,
        queueWaitTotalNanos, queueWaitMaxNanos, serviceCount, serviceTotalNanos, serviceMaxNanos,
        shutdown, LimitState.fixed(limit));
  }

  /** Null {@code limitState}: a fixed limit. */
  public ConcurrencySnapshot {
    if (limitState == null) {
      limitState = LimitState.fixed(limit);
    }
  }
}
