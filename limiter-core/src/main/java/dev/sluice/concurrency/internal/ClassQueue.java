package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.WaitQueue;

/**
 * A built-in queue that can name its newest waiter: what {@link PriorityWaitQueue} keeps one of
 * per class, so that displacement can take the newest waiter of a lower class in O(1).
 */
interface ClassQueue extends WaitQueue {

  /** The waiter that joined last and is still queued, or null when empty. */
  Waiter newest();
}
