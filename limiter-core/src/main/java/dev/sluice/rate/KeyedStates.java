package dev.sluice.rate;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The per-key states of a {@link KeyedRateLimiter}: a plain {@link ConcurrentHashMap} with lazy idle
 * expiry and a hard bound on keys.
 *
 * <p>A lookup of a known key is a map read and nothing else: no access time, no read buffer, no
 * frequency count. The algorithm's own state already says when it will be full again, and a full
 * state decides exactly like no state, so it can be dropped whenever convenient; a sweep does that
 * on the calling thread, at most once per {@code sweepEveryNanos} of clock time (the idle expiry, or
 * a second when that is shorter), when the bound is reached, and whenever {@link #size(long)} is
 * asked. A state that is not full is dropped only when the key bound forces it.
 *
 * <p>The bound is a count of slots taken before a new state is published, so the map never holds
 * more than {@code maxKeys} states, even for a moment. When no slot is left, one eviction pass drops
 * the states that are full, then the states closest to full (they forget the fewest permits: a
 * drained key, the one a flood of new keys would want to reset, is the last to go) until a
 * sixteenth of the slots are free again, so the pass is amortized over that many new keys.
 *
 * <p>Sweeps and evictions take a lock; a decision on a known key takes it only to run a due sweep
 * (and waits for it only after a silence longer than the idle expiry). A decision made on a state
 * that a sweep removed meanwhile is made again on the key's current state (see {@link KeyState}).
 *
 * @param <S> the algorithm's per-key state
 */
final class KeyedStates<S extends KeyState> {

  private static final int SAMPLE = 1_024;
  /** Sweeps of a fast-refilling limit (a millisecond) would walk the map a thousand times a second. */
  private static final long MIN_SWEEP_INTERVAL_NANOS = 1_000_000_000L;

  private final RateAlgorithm<S> arithmetic;
  private final long maxKeys;
  private final long graceNanos;
  private final long idleNanos;
  private final long sweepEveryNanos;
  private final long evictDownTo;
  private final ConcurrentHashMap<String, S> states = new ConcurrentHashMap<>();
  private final AtomicLong slots = new AtomicLong();
  /** Guards sweeps and evictions (one at a time); never taken by a decision on a known key. */
  private final ReentrantLock maintenance = new ReentrantLock();
  /** The clock reading of the last sweep; read by every call, written once per sweep. */
  private volatile long sweptAt;
  /** Scratch for eviction, guarded by {@link #maintenance}. */
  private long[] untilFull = new long[0];

  /**
   * @param idleNanos how long an untouched state is kept at least (at least the time it takes to
   *     be full); must be at most a quarter of {@code arithmetic.maxIdleNanos()}, see {@link
   *     #maxIdleNanos(RateAlgorithm)}
   */
  KeyedStates(RateAlgorithm<S> arithmetic, long maxKeys, long idleNanos, long now) {
    this.arithmetic = arithmetic;
    this.maxKeys = maxKeys;
    this.idleNanos = idleNanos;
    this.graceNanos = idleNanos - arithmetic.nanosUntilFull();
    // interval + 3 x idle stays within the exact range: idle <= range / 4, and so is the floor
    this.sweepEveryNanos =
        Math.max(idleNanos, Math.min(MIN_SWEEP_INTERVAL_NANOS, maxIdleNanos(arithmetic)));
    this.evictDownTo = maxKeys - Math.max(1, maxKeys / 16);
    this.sweptAt = now;
  }

  /**
   * The longest idle expiry this store can honour for {@code arithmetic}. A state is judged by the
   * algorithm only while its age is within the algorithm's exact range; between two sweeps a state
   * can be up to {@code sweep interval + 3 x idle} old (see {@link #maintain}), and the interval is
   * the idle expiry or, when that is shorter, at most a quarter of the range too.
   */
  static long maxIdleNanos(RateAlgorithm<?> arithmetic) {
    return arithmetic.maxIdleNanos() / 4;
  }

  /**
   * Runs a sweep when one is due; called before every state is touched. A sweep is due once {@code
   * sweepEveryNanos} passed since the last; a caller finding one already running goes on, unless so
   * much time passed that its states may be older than the algorithm's exact range: then it waits
   * for the sweep, which drops every state at once.
   */
  void maintain(long now) {
    if (now - sweptAt >= sweepEveryNanos) {
      sweepIfDue(now);
    }
  }

  private void sweepIfDue(long now) {
    if (now - sweptAt >= sweepEveryNanos + idleNanos) {
      maintenance.lock();
    } else if (!maintenance.tryLock()) {
      return;
    }
    try {
      if (now - sweptAt >= sweepEveryNanos) {
        sweep(now);
      }
    } finally {
      maintenance.unlock();
    }
  }

  /** The state of {@code key}, or null; for refunds, which never create state. */
  S get(String key) {
    return states.get(key);
  }

  /** The state of {@code key}, a new one (full at {@code now}) when it has none. */
  S getOrCreate(String key, long now) {
    S state = states.get(key);
    return state != null ? state : create(key, now);
  }

  private S create(String key, long now) {
    takeSlot(now);
    S created = arithmetic.newState(now);
    S prior = states.putIfAbsent(key, created);
    if (prior != null) {
      slots.decrementAndGet();
      return prior;
    }
    return created;
  }

  /** Drops a state a decision found retired, if a sweep has not yet unmapped it. */
  void forget(String key, S state) {
    if (states.remove(key, state)) {
      slots.decrementAndGet();
    }
  }

  /** The states held after a sweep at {@code now}; never more than {@code maxKeys}. */
  long size(long now) {
    maintenance.lock();
    try {
      sweep(now);
    } finally {
      maintenance.unlock();
    }
    return states.size();
  }

  private void takeSlot(long now) {
    long taken = slots.get();
    if (taken >= maxKeys || !slots.compareAndSet(taken, taken + 1)) {
      // out of line: the lock and the eviction would bloat every caller this path is inlined into
      takeSlotAfterEviction(now);
    }
  }

  @SuppressWarnings("ThreadPriorityCheck") // a brief spin while another caller publishes its state
  private void takeSlotAfterEviction(long now) {
    while (true) {
      long taken = slots.get();
      if (taken < maxKeys) {
        if (slots.compareAndSet(taken, taken + 1)) {
          return;
        }
        continue;
      }
      maintenance.lock();
      try {
        if (slots.get() >= maxKeys) {
          evict(now);
        }
      } finally {
        maintenance.unlock();
      }
      if (slots.get() >= maxKeys) {
        // every slot is taken by a state not yet published by another caller: it is about to be
        Thread.yield();
      }
    }
  }

  /** Drops the states full for the grace period; all of them after a gap they may not be judged over. */
  private void sweep(long now) {
    // every state was last updated after (last sweep - idle) and before (last sweep + interval +
    // idle), when a waiting caller ran this sweep; past that plus idle every one is full for idle
    boolean allIdle = now - sweptAt >= sweepEveryNanos + 2 * idleNanos;
    for (Map.Entry<String, S> entry : states.entrySet()) {
      S state = entry.getValue();
      if (allIdle) {
        state.retireNow();
        unmap(entry.getKey(), state);
      } else if (arithmetic.retireIfFullFor(state, now, graceNanos)) {
        unmap(entry.getKey(), state);
      }
    }
    if (now - sweptAt > 0) {
      sweptAt = now;
    }
  }

  /**
   * Sweeps, then drops the states closest to full until {@link #evictDownTo} slots are taken: those
   * within the sample's estimate of the right time until full, then (the estimate fell short) those
   * within twice as many of the sample's, and only then any state.
   */
  private void evict(long now) {
    sweep(now);
    long excess = slots.get() - evictDownTo;
    if (excess <= 0) {
      return;
    }
    long[] thresholds = thresholds(now, excess);
    for (int pass = 0; pass < 3 && excess > 0; pass++) {
      for (Map.Entry<String, S> entry : states.entrySet()) {
        S state = entry.getValue();
        if (pass == 2 || arithmetic.nanosUntilFull(state, now) <= thresholds[pass]) {
          state.retireNow();
          if (unmap(entry.getKey(), state) && --excess == 0) {
            return;
          }
        }
      }
    }
  }

  /**
   * About the {@code excess}-th smallest time until full, and the time within which twice as many
   * are, estimated from a sample of the states: every n-th over the whole map. The map's iteration
   * order follows key hashes, and keys alike but for a few characters (the client addresses of a
   * flood, 10.0.0.1, 10.0.0.2, ...) hash in runs that follow their arrival, so a prefix of it may
   * be all young or all old states; from such a prefix the estimate fell short and the fallback
   * dropped whatever came first, a drained key among them (measured: a drained address got 104
   * permits back under a flood of a million addresses).
   */
  private long[] thresholds(long now, long excess) {
    if (untilFull.length < SAMPLE) {
      untilFull = new long[SAMPLE];
    }
    long size = Math.max(1, states.size());
    long stride = Math.max(1, size / SAMPLE);
    int sampled = 0;
    long seen = 0;
    for (S state : states.values()) {
      if (seen++ % stride != 0) {
        continue;
      }
      if (sampled == SAMPLE) {
        break;
      }
      untilFull[sampled++] = arithmetic.nanosUntilFull(state, now);
    }
    if (sampled == 0) {
      return new long[] {Long.MIN_VALUE, Long.MIN_VALUE};
    }
    Arrays.sort(untilFull, 0, sampled);
    // a little above the exact quantile, so one pass usually frees enough
    long rank = Math.min(sampled - 1, (excess * sampled + size - 1) / size + sampled / 64);
    return new long[] {untilFull[(int) rank], untilFull[(int) Math.min(sampled - 1, 2 * rank + 1)]};
  }

  private boolean unmap(String key, S state) {
    if (states.remove(key, state)) {
      slots.decrementAndGet();
      return true;
    }
    return false;
  }
}
