package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.time.NanoClock;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * The decisions of global rules while Redis is down, as {@link FailurePolicy} says: this node's
 * share of each limit (limit / expected nodes, at least 1) counted by core's local {@link
 * RateLimiter} on the node's own clock, or allow everything, or deny everything.
 */
final class LocalShare {

  private final FailurePolicy policy;
  private final int expectedNodes;
  private final NanoClock clock;
  private final ConcurrentMap<Share, RateLimiter> limiters = new ConcurrentHashMap<>();

  LocalShare(FailurePolicy policy, int expectedNodes, NanoClock clock) {
    this.policy = policy;
    this.expectedNodes = expectedNodes;
    this.clock = clock;
  }

  RateDecision decide(RateRequest request) {
    long limit = request.limit().limit();
    return switch (policy) {
      case ALLOW -> RateDecision.allowed(limit, Math.max(0, limit - request.cost()), 0);
      case DENY -> RateDecision.rejected(limit, Guard.OPEN_FOR.toNanos(), 0);
      case LOCAL -> limiterFor(request).tryAcquire(request.key(), request.cost());
    };
  }

  /** Gives back permits a local decision took; nothing to give back under allow or deny. */
  void refund(RateRequest request) {
    if (policy == FailurePolicy.LOCAL) {
      RateLimiter limiter = limiters.get(Share.of(request));
      if (limiter != null) {
        limiter.refund(request.key(), request.cost());
      }
    }
  }

  private RateLimiter limiterFor(RateRequest request) {
    return limiters.computeIfAbsent(Share.of(request), share -> RateLimiter.of(
        share.algorithm(), nodeShare(share.limit(), expectedNodes), clock));
  }

  /** limit / nodes and burst / nodes, rounded down but at least 1, over the same period. */
  static RateLimit nodeShare(RateLimit limit, int nodes) {
    return new RateLimit(Math.max(1, limit.limit() / nodes), limit.period(),
        Math.max(1, limit.burst() / nodes));
  }

  /** One local limiter per rule, algorithm and limit: a changed rule starts a fresh one. */
  private record Share(String ruleId, Algorithm algorithm, RateLimit limit) {
    static Share of(RateRequest request) {
      return new Share(request.ruleId(), request.algorithm(), request.limit());
    }
  }
}
