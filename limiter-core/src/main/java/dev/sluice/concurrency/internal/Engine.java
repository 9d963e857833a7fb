package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.WaitQueue;

/**
 * The engine's one door: the contract's static factories ({@link ConcurrencyLimiter#builder},
 * {@link WaitQueue#fifo()} and its siblings) construct the implementations here, and no other
 * class of {@code dev.sluice.concurrency} names a class of this package. The engine depends on the
 * contract it implements; the contract reaches down only through this door, which the build's
 * architecture test states. Not for users: call the factories on the contract.
 */
public final class Engine {

  private Engine() {}

  /** See {@link ConcurrencyLimiter#builder}. */
  public static ConcurrencyLimiter.Builder builder(String name) {
    return new LimiterBuilder(name);
  }

  /** See {@link WaitQueue#fifo()}. */
  public static WaitQueue fifo() {
    return new FifoWaitQueue();
  }

  /** See {@link WaitQueue#fair(FairQueueConfig)}. */
  public static WaitQueue fair(FairQueueConfig config) {
    return new FairWaitQueue(config);
  }

  /** See {@link WaitQueue#prioritized()}. */
  public static WaitQueue prioritized() {
    return PriorityWaitQueue.overFifo();
  }

  /** See {@link WaitQueue#prioritized(FairQueueConfig)}. */
  public static WaitQueue prioritized(FairQueueConfig fairInsideEachClass) {
    return PriorityWaitQueue.overFair(fairInsideEachClass);
  }
}
