package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.WaitQueue;

/**
 * The spec of a queue handed over as an instance ({@code Builder.waitQueue}, {@code
 * setWaitQueue}): equal only to itself, so reconfiguring with the spec in force keeps that queue.
 */
final class GivenQueue implements QueueSpec {

  private final WaitQueue queue;
  private boolean handedOut;

  private GivenQueue(WaitQueue queue) {
    this.queue = queue;
  }

  static QueueSpec of(WaitQueue queue) {
    return new GivenQueue(queue);
  }

  @Override
  public synchronized WaitQueue newQueue() {
    if (handedOut) {
      throw new IllegalStateException("queue " + queue + " was given as an instance and serves"
          + " one limiter; describe it with QueueSpec.of(description, factory) to rebuild it");
    }
    handedOut = true;
    return queue;
  }

  @Override
  public String toString() {
    return queue.getClass().getSimpleName();
  }
}
