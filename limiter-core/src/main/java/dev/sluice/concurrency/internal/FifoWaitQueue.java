package dev.sluice.concurrency.internal;

/**
 * First come, first served. Takes only the limiter's own entries ({@link Waiter}). An intrusive
 * doubly linked list through {@link Waiter#prev} and {@link Waiter#next}, so that a cancelled or
 * timed-out waiter leaves from the middle in O(1) with no allocation and no search, even with
 * thousands queued.
 */
final class FifoWaitQueue implements ClassQueue {

  /** An empty queue. */
  FifoWaitQueue() {}

  private Waiter head;
  private Waiter tail;
  private int size;

  @Override
  public void add(Entry entry) {
    Waiter waiter = (Waiter) entry;
    waiter.prev = tail;
    waiter.next = null;
    if (tail == null) {
      head = waiter;
    } else {
      tail.next = waiter;
    }
    tail = waiter;
    waiter.queued = true;
    size++;
  }

  @Override
  public Entry poll() {
    Waiter first = head;
    if (first != null) {
      unlink(first);
    }
    return first;
  }

  /** Newest first: the tail. */
  @Override
  public Entry pollNewest() {
    Waiter last = tail;
    if (last != null) {
      unlink(last);
    }
    return last;
  }

  @Override
  public boolean remove(Entry entry) {
    Waiter waiter = (Waiter) entry;
    if (!waiter.queued) {
      return false;
    }
    unlink(waiter);
    return true;
  }

  @Override
  public int size() {
    return size;
  }

  @Override
  public Waiter newest() {
    return tail;
  }

  private void unlink(Waiter waiter) {
    Waiter before = waiter.prev;
    Waiter after = waiter.next;
    if (before == null) {
      head = after;
    } else {
      before.next = after;
    }
    if (after == null) {
      tail = before;
    } else {
      after.prev = before;
    }
    waiter.prev = null;
    waiter.next = null;
    waiter.queued = false;
    size--;
  }
}
