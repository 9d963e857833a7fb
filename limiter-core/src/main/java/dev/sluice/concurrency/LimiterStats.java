package dev.sluice.concurrency;

import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * The counters behind {@link ConcurrencySnapshot}. Striped adders rather than atomics: writers on
 * different cores do not fight over one cache line, and the snapshot (rare) pays for the sum. The
 * maxima use an accumulator, which writes only when a new maximum appears.
 */
final class LimiterStats {

  final LongAdder admitted = new LongAdder();
  final LongAdder queuedTotal = new LongAdder();
  final LongAdder rejectedQueueFull = new LongAdder();
  final LongAdder rejectedQueueTimeout = new LongAdder();
  final LongAdder cancelled = new LongAdder();
  final LongAdder rejectedShutdown = new LongAdder();

  final LongAdder queueWaitCount = new LongAdder();
  final LongAdder queueWaitTotal = new LongAdder();
  final LongAccumulator queueWaitMax = new LongAccumulator(Math::max, 0);

  final LongAdder serviceCount = new LongAdder();
  final LongAdder serviceTotal = new LongAdder();
  final LongAccumulator serviceMax = new LongAccumulator(Math::max, 0);

  void rejected(Outcome outcome) {
    switch (outcome) {
      case QUEUE_FULL -> rejectedQueueFull.increment();
      case QUEUE_TIMEOUT -> rejectedQueueTimeout.increment();
      case CANCELLED -> cancelled.increment();
      case SHUTDOWN -> rejectedShutdown.increment();
      case ADMITTED -> throw new IllegalArgumentException("not a rejection: " + outcome);
    }
  }

  /** A caller left the queue, whatever the reason, after {@code nanos} in it. */
  void leftQueue(long nanos) {
    queueWaitCount.increment();
    queueWaitTotal.add(nanos);
    queueWaitMax.accumulate(nanos);
  }

  void served(long nanos) {
    serviceCount.increment();
    serviceTotal.add(nanos);
    serviceMax.accumulate(nanos);
  }

  /**
   * Estimated wait before a retry could be admitted: mean service time x (queued ahead + 1) /
   * limit. Before any permit was released there is no mean; {@code fallbackNanos} stands in.
   */
  long retryAfterNanos(int queuedAhead, int limit, long fallbackNanos) {
    long count = serviceCount.sum();
    long mean = count == 0 ? fallbackNanos : serviceTotal.sum() / count;
    double estimate = (double) mean * (queuedAhead + 1L) / Math.max(1, limit);
    return estimate >= Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, (long) estimate);
  }
}
