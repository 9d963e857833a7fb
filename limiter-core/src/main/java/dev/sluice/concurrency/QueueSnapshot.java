package dev.sluice.concurrency;

/**
 * Who waits in a limiter's queue, by class and key, and how many queue-full answers had a finer
 * reason: {@link ConcurrencyLimiter#queueSnapshot()}. The gauges are read together under the
 * limiter's lock; the counters are monotonic and also counted in {@link
 * ConcurrencySnapshot#rejectedQueueFull()}.
 *
 * @param critical waiters of class {@link Priority#CRITICAL}
 * @param normal waiters of class {@link Priority#NORMAL} (every waiter, for a queue without
 *     classes)
 * @param sheddable waiters of class {@link Priority#SHEDDABLE}
 * @param keys keys with waiters (per class: a key in two classes counts twice); 0 without keys
 * @param rejectedKeyCap callers refused because their key was at its cap ({@link
 *     RejectionReason#KEY_CAP})
 * @param displaced waiters displaced by a higher class ({@link RejectionReason#DISPLACED})
 */
public record QueueSnapshot(
    int critical, int normal, int sheddable, int keys, long rejectedKeyCap, long displaced) {

  /** The waiters of one class. */
  public int queued(Priority priority) {
    return switch (priority) {
      case CRITICAL -> critical;
      case NORMAL -> normal;
      case SHEDDABLE -> sheddable;
    };
  }
}
