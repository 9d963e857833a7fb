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
 * <p>At most {@link #MAX_KEYS} rule-and-actor pairs are tracked; beyond that, new pairs are not
 * counted (their admissions cannot be given back).
 */
final class Recent {

  static final int MAX_KEYS = 100_000;

  private final ConcurrentMap<Key, Window> windows = new ConcurrentHashMap<>();

  /** One rule, actor and limit. */
  record Key(String ruleId, String actor, Algorithm algorithm, RateLimit limit) {
    static Key of(RateRequest request) {
      return new Key(request.ruleId(), request.key(), request.algorithm(), request.limit());
    }

    RateRequest request(long cost) {
      return new RateRequest(ruleId, actor, algorithm, limit, cost);
    }
  }

  /** Two windows of counts; guarded by its own lock (a few arithmetic operations). */
  private static final class Window {
    long start;
    long current;
    long previous;

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
    Window window = windows.get(key);
    if (window == null) {
      if (windows.size() >= MAX_KEYS) {
        return;
      }
      window = windows.computeIfAbsent(key, k -> {
        Window w = new Window();
        w.start = now;
        return w;
      });
    }
    long period = period(key);
    synchronized (window) {
      window.roll(now, period);
      window.current += cost;
    }
  }

  /** A refund: {@code request}'s cost was given back. */
  void subtract(RateRequest request, long now) {
    Window window = windows.get(Key.of(request));
    if (window != null) {
      synchronized (window) {
        window.roll(now, period(Key.of(request)));
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
      return window.estimate(now, period(key));
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
        owed = window.estimate(now, period(key));
        if (clear) {
          window.current = 0;
          window.previous = 0;
        }
      }
      if (owed > 0) {
        long capacity = Math.max(key.limit().limit(), key.limit().burst());
        charges.add(key.request(Math.min(owed, capacity)));
      } else {
        windows.remove(key, window);
      }
    }
    return charges;
  }

  private static long period(Key key) {
    return Math.max(1, key.limit().period().toNanos());
  }
}
