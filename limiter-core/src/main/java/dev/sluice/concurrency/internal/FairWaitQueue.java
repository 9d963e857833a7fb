package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.FairQueueConfig;
import dev.sluice.concurrency.RejectionReason;
import java.util.HashMap;
import java.util.Map;

/**
 * Fair across keys by deficit round robin (Shreedhar and Varghese): see {@link
 * dev.sluice.concurrency.WaitQueue#fair(FairQueueConfig)}. Takes only the limiter's own entries
 * ({@link Waiter}).
 *
 * <p>Each key with waiters has a {@link Flow}: its waiters in arrival order (intrusive, through
 * {@link Waiter#prev}/{@link Waiter#next}), its weight and its deficit. The flows with waiters form
 * a ring; {@link #current} is the one being served. Visiting a flow credits it its weight once;
 * it is served while its head's cost ({@link dev.sluice.concurrency.Caller#cost()}) fits in the
 * deficit, then the ring moves on. A flow whose last waiter leaves is unlinked and dropped from the
 * map at once, deficit and all, so idle keys cost nothing and a returning key starts a new round at
 * the ring's end (standard DRR: credit is not saved up while idle). Every waiter is also on one
 * arrival-order list ({@link Waiter#older}/{@link Waiter#newer}, no head kept: only the newest end
 * is ever needed), so the newest can be displaced in O(1).
 *
 * <p>With unit costs (the plugin's case) a poll is O(1). A head costing more than its flow's weight
 * takes several turns of the ring to save up for, as DRR prescribes.
 */
final class FairWaitQueue implements ClassQueue {

  /** One key's waiters and its place in the ring. Exists only while the key has a waiter. */
  static final class Flow {
    String key;
    int weight;
    long deficit;
    /** Whether this visit's credit was given: a flow earns its weight once per turn. */
    boolean credited;

    Waiter head;
    Waiter tail;
    int size;
    Flow before;
    Flow after;

    Flow reset(String newKey, int newWeight) {
      key = newKey;
      weight = newWeight;
      deficit = 0;
      credited = false;
      return this;
    }
  }

  private final FairQueueConfig config;
  private final int maxPerKey;
  private final Map<String, Flow> flows = new HashMap<>();
  private Flow current;
  /**
   * One retired flow, blank, kept for the next new key: with many keys of one waiter each, every
   * grant retires a key and every arrival makes one, and reusing the object halves that garbage.
   */
  private Flow spare;

  private Waiter newest;
  private int size;

  FairWaitQueue(FairQueueConfig config) {
    this.config = config;
    this.maxPerKey = config.maxQueuePerKey();
  }

  @Override
  public void add(Entry entry) {
    Waiter waiter = (Waiter) entry;
    String key = waiter.caller().key();
    Flow flow = flows.get(key);
    if (flow == null) {
      flow = (spare == null ? new Flow() : spare).reset(key, config.weightOf(key));
      spare = null;
      flows.put(key, flow);
      joinRing(flow);
    }
    waiter.flow = flow;
    waiter.prev = flow.tail;
    waiter.next = null;
    if (flow.tail == null) {
      flow.head = waiter;
    } else {
      flow.tail.next = waiter;
    }
    flow.tail = waiter;
    flow.size++;
    waiter.older = newest;
    waiter.newer = null;
    if (newest != null) {
      newest.newer = waiter;
    }
    newest = waiter;
    waiter.queued = true;
    size++;
  }

  /** A new flow joins at the end of the round: it waits for every flow already waiting. */
  private void joinRing(Flow flow) {
    if (current == null) {
      flow.before = flow;
      flow.after = flow;
      current = flow;
    } else {
      Flow last = current.before;
      flow.before = last;
      flow.after = current;
      last.after = flow;
      current.before = flow;
    }
  }

  @Override
  public Entry poll() {
    return take(false);
  }

  /** The key is chosen by the same round robin; within it, its newest waiter. */
  @Override
  public Entry pollNewest() {
    return take(true);
  }

  private Entry take(boolean newest) {
    if (size == 0) {
      return null;
    }
    for (; ; ) {
      Flow flow = current;
      if (!flow.credited) {
        flow.deficit += flow.weight;
        flow.credited = true;
      }
      Waiter next = newest ? flow.tail : flow.head;
      int cost = next.caller().cost();
      if (flow.deficit >= cost) {
        flow.deficit -= cost;
        unlink(next);
        return next;
      }
      flow.credited = false;
      current = flow.after;
    }
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

  private void unlink(Waiter waiter) {
    Flow flow = waiter.flow;
    if (waiter.prev == null) {
      flow.head = waiter.next;
    } else {
      waiter.prev.next = waiter.next;
    }
    if (waiter.next == null) {
      flow.tail = waiter.prev;
    } else {
      waiter.next.prev = waiter.prev;
    }
    if (waiter.older != null) {
      waiter.older.newer = waiter.newer;
    }
    if (waiter.newer == null) {
      newest = waiter.older;
    } else {
      waiter.newer.older = waiter.older;
    }
    waiter.prev = null;
    waiter.next = null;
    waiter.older = null;
    waiter.newer = null;
    waiter.flow = null;
    waiter.queued = false;
    size--;
    if (--flow.size == 0) {
      retire(flow);
    }
  }

  /** The key has no waiter left: it leaves the ring and the map, so nothing of it remains. */
  private void retire(Flow flow) {
    flows.remove(flow.key);
    if (flow.after == flow) {
      current = null;
    } else {
      flow.before.after = flow.after;
      flow.after.before = flow.before;
      if (current == flow) {
        current = flow.after;
      }
    }
    flow.before = null;
    flow.after = null;
    flow.reset(null, 0); // no trace of the key is kept
    spare = flow;
  }

  @Override
  public int size() {
    return size;
  }

  /**
   * An upper bound: a newcomer whose key has {@code n} waiters is granted within {@code n + 1}
   * rounds, each granting at most one waiter per key with waiters (key weights are not counted).
   */
  @Override
  public int ahead(Entry entry) {
    Flow flow = flows.get(entry.caller().key());
    int own = flow == null ? 0 : flow.size;
    int keys = flows.size() + (flow == null ? 1 : 0);
    return (int) Math.min(size, (own + 1L) * keys - 1);
  }

  @Override
  public RejectionReason refusal(Entry entry) {
    if (maxPerKey == 0) {
      return null;
    }
    Flow flow = flows.get(entry.caller().key());
    return flow != null && flow.size >= maxPerKey ? RejectionReason.KEY_CAP : null;
  }

  @Override
  public Waiter newest() {
    return newest;
  }

  @Override
  public int keys() {
    return flows.size();
  }

  /** Test hook: the flow kept for {@code key}, or null when it has no waiter. */
  Flow flowOf(String key) {
    return flows.get(key);
  }
}
