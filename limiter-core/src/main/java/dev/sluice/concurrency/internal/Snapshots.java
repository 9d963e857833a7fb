package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.LimitState;

/**
 * Where a limiter's snapshots are assembled from its parts: the counters ({@link LimiterStats}),
 * the gauges the limiter reads from its own state, and the spec and limit in force. The local
 * limiter and the global one report through it, so both answer in one shape.
 */
final class Snapshots {

  private Snapshots() {}

  /** What a limiter reads from its own state for a snapshot; the counters come from the stats. */
  record Gauges(int inFlight, int queued, boolean shutdown, long admitted, long released) {}

  /**
   * A snapshot of {@code stats} with {@code gauges}; {@code predictedWait} and {@code
   * standingQueue} are the refusals for those reasons (a global limiter's come from its local
   * stage, where they are decided).
   */
  static ConcurrencySnapshot concurrency(
      String name,
      LimiterSpec spec,
      LimitState limit,
      Gauges gauges,
      LimiterStats stats,
      long predictedWait,
      long standingQueue) {
    long released = gauges.released();
    long timed = stats.timedCount.sum();
    return ConcurrencySnapshot.builder(name, spec, limit)
        .gauges(gauges.inFlight(), gauges.queued(), gauges.shutdown())
        .outcomes(
            gauges.admitted(),
            stats.queuedTotal.sum(),
            stats.rejectedQueueFull.sum(),
            stats.rejectedQueueTimeout.sum(),
            stats.cancelled.sum(),
            stats.rejectedShutdown.sum())
        .queueWait(stats.queueWaitCount.sum(), stats.queueWaitTotal.sum(), stats.queueWaitMax.get())
        .service(
            released,
            LimiterStats.serviceTotal(released, timed, stats.timedTotal.sum()),
            stats.serviceMax.get())
        .late(stats.rejectedLate.sum())
        .reasons(predictedWait, standingQueue)
        .build();
  }

  /**
   * A local limiter's snapshot, from its state word {@code s}, read before the counters: released
   * is counted after a release's CAS, so released + in flight never exceeds the true admissions; it
   * may lag by releases in progress, so it is held monotonic against what earlier snapshots
   * reported.
   */
  static ConcurrencySnapshot local(
      String name, LimiterSpec spec, LimitState limit, long s, LimiterStats stats) {
    long released = stats.released.sum();
    stats.admittedReported.accumulate(released + BoundedQueueLimiter.inFlight(s));
    Gauges gauges = new Gauges(
        BoundedQueueLimiter.inFlight(s),
        BoundedQueueLimiter.queued(s),
        s < 0,
        stats.admittedReported.get(),
        released);
    return concurrency(
        name, spec, limit, gauges, stats, stats.predictedWait.sum(), stats.standingQueue.sum());
  }

  /** The queue's shape by class and key, with the refusals the discipline decided. Caller holds the queue's lock. */
  static QueueSnapshot queue(WaitQueue queue, LimiterStats stats) {
    return new QueueSnapshot(
        queue.size(Priority.CRITICAL),
        queue.size(Priority.NORMAL),
        queue.size(Priority.SHEDDABLE),
        queue.keys(),
        stats.rejectedKeyCap.sum(),
        stats.displaced.sum());
  }
}
