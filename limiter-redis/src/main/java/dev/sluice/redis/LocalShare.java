package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.time.NanoClock;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * The decisions of global rules while Redis is down, as {@link FailurePolicy} says: this node's
 * share of each limit (limit / expected nodes, at least 1) counted by core's local {@link
 * RateLimiter} on the node's own clock, or allow everything, or deny everything.
 *
 * <p>Count locally, sync, compensate: a share starts each outage already holding what this node
 * admitted through Redis in the last period ({@link Recent}), so a node that had used its share
 * before the outage does not get it again; and what it admits while down is kept as a debt, charged
 * to Redis when Redis answers again ({@link RedisRateStore}).
 */
final class LocalShare {

  private final FailurePolicy policy;
  private final int expectedNodes;
  private final NanoClock clock;
  private final Recent recent;
  private final Debts debts;
  private volatile ConcurrentMap<Share, RateLimiter> limiters = new ConcurrentHashMap<>();
  // the pairs Recent held when the shares started afresh, each waiting for its first decision to
  // take its recent permits from the share; null until the first decision after the start takes
  // the snapshot. At most Recent.MAX_KEYS pairs, and emptied as they are used: a set of the pairs
  // seeded so far would grow by one per new actor for the whole outage, a million under a flood
  private volatile Set<Recent.Key> unseeded;
  private final ReentrantReadWriteLock swapping = new ReentrantReadWriteLock();

  /** {@code recent}: what this node admitted through Redis and locally, for seeding the shares. */
  LocalShare(FailurePolicy policy, int expectedNodes, NanoClock clock, Recent recent) {
    this.policy = policy;
    this.expectedNodes = expectedNodes;
    this.clock = clock;
    this.recent = recent;
    this.debts = new Debts(expectedNodes);
  }

  /**
   * Redis went down, or lost its counts: every share starts afresh, seeded on first use with the
   * recent counts. Waits for the decisions under way on the old shares: one that took a permit
   * there but had not yet counted it in {@link Recent} would otherwise be missing from the new
   * share's seed (measured: 11 admitted on a share of 10 after a FLUSHALL).
   */
  void outageStarted() {
    swapping.writeLock().lock();
    try {
      limiters = new ConcurrentHashMap<>();
      unseeded = null;
    } finally {
      swapping.writeLock().unlock();
    }
  }

  /** Decides as the failure policy says. */
  RateDecision decide(RateRequest request) {
    return decide(request, policy);
  }

  /**
   * Decides on this node's share whatever the failure policy: Redis answers, but lost its counts a
   * moment ago (see {@link LossWatch}); allowing everything or denying everything for the settling
   * time would punish a loss that the share can bound.
   */
  RateDecision decideOnShare(RateRequest request) {
    return decide(request, FailurePolicy.LOCAL);
  }

  private RateDecision decide(RateRequest request, FailurePolicy policy) {
    long limit = request.limit().limit();
    // a read lock on the degraded path only: held from choosing the share to counting the permit
    swapping.readLock().lock();
    try {
      RateDecision decision = switch (policy) {
        case ALLOW -> RateDecision.allowed(limit, Math.max(0, limit - request.cost()), 0);
        case DENY -> RateDecision.rejected(limit, Guard.OPEN_FOR.toNanos(), 0);
        case LOCAL -> seededLimiterFor(request).tryAcquire(request.key(), request.cost());
      };
      if (decision.allowed() && policy != FailurePolicy.DENY) {
        long now = clock.nanoTime();
        debts.add(request, now);
        recent.add(request, now);
      }
      return decision;
    } finally {
      swapping.readLock().unlock();
    }
  }

  /** Gives back permits a local decision took; nothing to give back under allow or deny. */
  void refund(RateRequest request) {
    RateLimiter limiter = limiters.get(Share.of(request));
    if (limiter != null) {
      limiter.refund(request.key(), request.cost());
    }
    long now = clock.nanoTime();
    debts.subtract(request, now);
    recent.subtract(request, now);
  }

  /**
   * What to charge Redis with now: the charges not answered before and what was admitted locally
   * since the last call (see {@link Debts}).
   */
  java.util.List<Debts.Charge> takeDebts() {
    return debts.isEmpty() ? java.util.List.of() : debts.take(clock.nanoTime());
  }

  /** A charge whose answer did not come: sent again, unchanged, with the next ones. */
  void unanswered(Debts.Charge charge) {
    debts.unanswered(charge);
  }

  /** Redis lost its state: the debts are part of what is charged again (see {@link Recent}). */
  void forgetDebts() {
    debts.clear(clock.nanoTime());
  }

  long nanoTime() {
    return clock.nanoTime();
  }

  private RateLimiter seededLimiterFor(RateRequest request) {
    RateLimiter limiter = limiters.computeIfAbsent(
        Share.of(request),
        share -> RateLimiter.of(share.algorithm(), nodeShare(share.limit(), expectedNodes), clock));
    Recent.Key key = Recent.Key.of(request);
    Set<Recent.Key> waiting = unseeded();
    if (waiting.contains(key)) {
      // The permits this node took in the last period count against its share of this outage.
      // A pair leaves the set only once its permits are taken, under the share's lock: a caller
      // that found it gone while another seeded it would otherwise decide on the empty share
      // (measured: 9 admitted beyond the limit by a node that had used it all before the outage).
      synchronized (limiter) {
        if (waiting.contains(key)) {
          long used = Math.min(
              recent.count(key, clock.nanoTime()),
              nodeShare(request.limit(), expectedNodes).burst());
          for (long i = 0; i < used; i++) {
            limiter.tryAcquire(request.key(), 1);
          }
          debts.seed(request, used, clock.nanoTime());
          waiting.remove(key);
        }
      }
    }
    return limiter;
  }

  /**
   * The pairs still to be seeded: on the first call after the shares started afresh, every pair
   * {@link Recent} holds then (a pair it does not hold has no recent permits to seed). During the
   * outage Recent also counts the local admissions, which a later snapshot would seed twice.
   */
  private Set<Recent.Key> unseeded() {
    Set<Recent.Key> waiting = unseeded;
    if (waiting == null) {
      synchronized (this) {
        waiting = unseeded;
        if (waiting == null) {
          waiting = ConcurrentHashMap.newKeySet();
          waiting.addAll(recent.keys());
          unseeded = waiting;
        }
      }
    }
    return waiting;
  }

  /** Pairs whose recent permits are still to be taken from their share (at most Recent's bound). */
  int unseededPairs() {
    return unseeded().size();
  }

  /** limit / nodes and burst / nodes, rounded down but at least 1, over the same period. */
  static RateLimit nodeShare(RateLimit limit, int nodes) {
    return new RateLimit(
        Math.max(1, limit.limit() / nodes), limit.period(), Math.max(1, limit.burst() / nodes));
  }

  /** One local limiter per rule, algorithm and limit: a changed rule starts a fresh one. */
  private record Share(String ruleId, Algorithm algorithm, RateLimit limit) {
    static Share of(RateRequest request) {
      return new Share(request.ruleId(), request.algorithm(), request.limit());
    }
  }
}
