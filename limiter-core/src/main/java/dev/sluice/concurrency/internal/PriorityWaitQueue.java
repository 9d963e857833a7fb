package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import java.util.function.Supplier;

/**
 * Priority classes over one built-in queue per class: see {@link WaitQueue#prioritized()}. Grants
 * go to the highest class with waiters; when the limiter's queue is full, {@link #victimFor} names
 * the newest waiter of the lowest class below the newcomer's. Strict priority, on purpose: under
 * sustained overload lower classes can starve, which is what shedding means.
 */
// one queue per priority, indexed by ordinal: Priority's declaration order is the order of service
@SuppressWarnings("EnumOrdinal")
final class PriorityWaitQueue implements WaitQueue {

  private static final Priority[] CLASSES = Priority.values();

  /** Indexed by {@link Priority#ordinal()}: CRITICAL first. */
  private final ClassQueue[] classes = new ClassQueue[CLASSES.length];

  private int size;

  /** Classes with a FIFO queue in each. */
  static PriorityWaitQueue overFifo() {
    return new PriorityWaitQueue(FifoWaitQueue::new);
  }

  /** Classes with a fair queue of {@code config} in each. */
  static PriorityWaitQueue overFair(FairQueueConfig config) {
    return new PriorityWaitQueue(() -> new FairWaitQueue(config));
  }

  PriorityWaitQueue(Supplier<ClassQueue> perClass) {
    for (int i = 0; i < classes.length; i++) {
      classes[i] = perClass.get();
    }
  }

  private ClassQueue classOf(Entry entry) {
    return classes[entry.caller().priority().ordinal()];
  }

  @Override
  public void add(Entry entry) {
    classOf(entry).add(entry);
    size++;
  }

  @Override
  public Entry poll() {
    return take(false);
  }

  /** The highest class with waiters, then its newest (within its key, for fair classes). */
  @Override
  public Entry pollNewest() {
    return take(true);
  }

  private Entry take(boolean newest) {
    if (size == 0) {
      return null;
    }
    for (ClassQueue queue : classes) {
      if (queue.size() > 0) {
        size--;
        return newest ? queue.pollNewest() : queue.poll();
      }
    }
    throw new IllegalStateException("size " + size + " but every class is empty");
  }

  @Override
  public boolean remove(Entry entry) {
    if (classOf(entry).remove(entry)) {
      size--;
      return true;
    }
    return false;
  }

  @Override
  public int size() {
    return size;
  }

  /** Every waiter of a higher class, plus those of its own class ahead of it. */
  @Override
  public int ahead(Entry entry) {
    int rank = entry.caller().priority().ordinal();
    int ahead = 0;
    for (int i = 0; i < rank; i++) {
      ahead += classes[i].size();
    }
    return ahead + classes[rank].ahead(entry);
  }

  @Override
  public RejectionReason refusal(Entry entry) {
    return classOf(entry).refusal(entry);
  }

  @Override
  public Entry victimFor(Entry entry) {
    int rank = entry.caller().priority().ordinal();
    for (int i = classes.length - 1; i > rank; i--) {
      if (classes[i].size() > 0) {
        return classes[i].newest();
      }
    }
    return null;
  }

  @Override
  public int size(Priority priority) {
    return classes[priority.ordinal()].size();
  }

  @Override
  public int keys() {
    int keys = 0;
    for (ClassQueue queue : classes) {
      keys += queue.keys();
    }
    return keys;
  }
}
