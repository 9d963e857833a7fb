package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * What this node admitted under each global rule and actor in about the last period: two windows
 * of one period each, the older one weighed by how much of it still overlaps the last period (the
 * sliding-window-counter estimate, O(1) per key). Used to give Redis back what it does not know:
 * the admissions made locally while it was down, or everything recent when it lost its state
 * (restart, FLUSHALL). The estimate never undercounts admissions of the last period, so a charge
 * errs on the side of admitting too few.
 *
 * <p>Pairs with nothing left in the last period are dropped by a walk of the map that a new pair
 * starts once the map has grown to twice what the last walk left (and at least {@link
 * #FIRST_SWEEP_SIZE}), at most once per {@link #SWEEP_EVERY_NANOS} of the clock: the walks cost a
 * few steps per new pair, and a node whose actors come and go (keys that name a window, a crowd of
 * clients passing through) keeps about the pairs of its last periods, not every pair it ever saw.
 * At most {@link #MAX_KEYS} pairs are tracked; only while every tracked pair is still recent are
 * new pairs not counted (their admissions cannot be given back).
 */
final class Recent {

  static final int MAX_KEYS = 100_000;

  /** The size at which the first walk for idle pairs runs; below it the map is never walked. */
  static final int FIRST_SWEEP_SIZE = 1_024;

  /** The shortest time between two walks for idle pairs. */
  static final long SWEEP_EVERY_NANOS = 1_000_000_000L;

  private final Object sweepLock = new Object();
  // written under sweepLock; read without it first, so that a new pair between two walks only
  // reads them
  private volatile boolean swept;
  private volatile long lastSweepNanos;
  private volatile int sweepAtSize = FIRST_SWEEP_SIZE;

  private final ConcurrentMap<Key, Window> windows = new ConcurrentHashMap<>();

  /**
   * One rule, actor and limit. Made once per admission and looked up in more than one map: its
   * hash and its period are computed once.
   */
  static final class Key {
    private final String ruleId;
    private final String actor;
    private final Algorithm algorithm;
    private final RateLimit limit;
    private final int hash;
    private final long periodNanos;

    Key(String ruleId, String actor, Algorithm algorithm, RateLimit limit) {
      this.ruleId = ruleId;
      this.actor = actor;
      this.algorithm = algorithm;
      this.limit = limit;
      // the four fields' hashes combined once, without the array a varargs hash allocates
      this.hash = 31 * (31 * (31 * ruleId.hashCode() + actor.hashCode()) + algorithm.hashCode())
          + limit.hashCode();
      this.periodNanos = Math.max(1, limit.period().toNanos());
    }

    static Key of(RateRequest request) {
      return new Key(request.ruleId(), request.key(), request.algorithm(), request.limit());
    }

    RateRequest request(long cost) {
      return new RateRequest(ruleId, actor, algorithm, limit, cost);
    }

    RateLimit limit() {
      return limit;
    }

    @Override
    public boolean equals(Object other) {
      return other instanceof Key k
          && hash == k.hash
          && actor.equals(k.actor)
          && ruleId.equals(k.ruleId)
          && algorithm == k.algorithm
          && limit.equals(k.limit);
    }

    @Override
    public int hashCode() {
      return hash;
    }

    @Override
    public String toString() {
      return "Key[ruleId=" + ruleId + ", actor=" + actor + ", algorithm=" + algorithm + ", limit="
          + limit + "]";
    }
  }

  /** Two windows of counts; guarded by its own lock (a few arithmetic operations). */
  private static final class Window {
    long start;
    long current;
    long previous;
    /** Taken out of the map: an admission that finds it so goes to the pair's new window. */
    boolean dropped;

    void roll(long now, long period) {
      long elapsed = now - start;
      if (elapsed >= period) {
        previous = elapsed < 2 * period ? current : 0;
        current = 0;
        start = elapsed < 2 * period ? start + period : now;
      }
    }

    long estimate(long now, long period) {
      roll(now, period);
      double weight = 1 - (double) (now - start) / period;
      return (long) Math.ceil(previous * Math.max(0, weight) + current);
    }
  }

  /** The pairs tracked now (a copy; at most {@link #MAX_KEYS}). */
  List<Key> keys() {
    return List.copyOf(windows.keySet());
  }

  boolean isEmpty() {
    return windows.isEmpty();
  }

  /** {@code request} took its cost at {@code now}. */
  void add(RateRequest request, long now) {
    add(Key.of(request), request.cost(), now);
  }

  void add(Key key, long cost, long now) {
    long period = key.periodNanos;
    for (; ; ) {
      Window window = windows.get(key);
      if (window == null) {
        if (windows.size() >= sweepAtSize && !dropIdle(now)) {
          return;
        }
        Window fresh = new Window();
        fresh.start = now;
        Window present = windows.putIfAbsent(key, fresh);
        window = present == null ? fresh : present;
      }
      synchronized (window) {
        if (!window.dropped) {
          window.roll(now, period);
          window.current += cost;
          return;
        }
      }
    }
  }

  /**
   * The map has reached the size of the next walk: drops the pairs with nothing in their last
   * period, unless a walk ran less than {@link #SWEEP_EVERY_NANOS} ago; the next walk comes when
   * the map has doubled again. Whether there is room for a new pair now.
   */
  private boolean dropIdle(long now) {
    if (sweepDue(now)) {
      synchronized (sweepLock) {
        if (sweepDue(now)) {
          swept = true;
          lastSweepNanos = now;
          for (var entry : windows.entrySet()) {
            Window window = entry.getValue();
            synchronized (window) {
              if (window.estimate(now, entry.getKey().periodNanos) == 0) {
                drop(entry.getKey(), window);
              }
            }
          }
          sweepAtSize = (int) Math.min(MAX_KEYS, Math.max(FIRST_SWEEP_SIZE, 2L * windows.size()));
        }
      }
    }
    return windows.size() < MAX_KEYS;
  }

  private boolean sweepDue(long now) {
    return !swept || now - lastSweepNanos >= SWEEP_EVERY_NANOS;
  }

  /** The size of the map at which a new pair starts the next walk for idle pairs. */
  int sweepAtSize() {
    return sweepAtSize;
  }

  /** Takes {@code window} out of the map; the caller holds its lock. */
  private void drop(Key key, Window window) {
    window.dropped = true;
    windows.remove(key, window);
  }

  /** A refund: {@code request}'s cost was given back. */
  void subtract(RateRequest request, long now) {
    Key key = Key.of(request);
    Window window = windows.get(key);
    if (window != null) {
      synchronized (window) {
        window.roll(now, key.periodNanos);
        window.current = Math.max(0, window.current - request.cost());
      }
    }
  }

  /** How many permits of {@code key} were taken in about the last period. */
  long count(Key key, long now) {
    Window window = windows.get(key);
    if (window == null) {
      return 0;
    }
    synchronized (window) {
      return window.estimate(now, key.periodNanos);
    }
  }

  /**
   * What to charge Redis with: one request per pair with a cost of its recent count (at most its
   * limit's capacity; more could never matter). {@code clear}: forget the counts (they are paid).
   * Pairs idle for two periods are dropped either way.
   */
  List<RateRequest> charges(long now, boolean clear) {
    List<RateRequest> charges = new ArrayList<>();
    for (var entry : windows.entrySet()) {
      Key key = entry.getKey();
      Window window = entry.getValue();
      long owed;
      synchronized (window) {
        owed = window.estimate(now, key.periodNanos);
        if (clear) {
          window.current = 0;
          window.previous = 0;
        }
        if (owed <= 0) {
          drop(key, window);
        }
      }
      if (owed > 0) {
        long capacity = Math.max(key.limit().limit(), key.limit().burst());
        charges.add(key.request(Math.min(owed, capacity)));
      }
    }
    return charges;
  }
}
