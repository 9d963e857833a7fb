package dev.sluice.redis;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Batched mode ({@code ?batch=N}): a node takes up to N permits of a rule and actor from Redis in one
 * round trip and hands them out locally until they are used up; every {@code batch-sync} the unused
 * ones go back to Redis.
 *
 * <p>Why this shape rather than "count locally, add the counts to Redis later": a node only hands
 * out permits Redis has already counted, so the nodes together never admit more than the bucket
 * allowed when the permits were taken. What a batch costs instead: permits parked on one node are
 * missing on the others (at most N - 1 per node, for at most one sync interval), and a parked permit
 * is used up to one sync interval after the bucket released it, so over any span D the nodes admit
 * at most burst + rate x (D + batch-sync) — the exact bound stretched by one sync interval.
 *
 * <p>Only the theoretical-arrival-time algorithms are batched (token bucket, GCRA, leaky bucket
 * meter), whose permits are interchangeable; the others always ask Redis.
 */
final class Batches {

  private final int size;
  private final ConcurrentMap<Rule, Held> held = new ConcurrentHashMap<>();

  Batches(int size) {
    this.size = size;
  }

  static boolean batchable(RateRequest request) {
    Algorithm algorithm = request.algorithm();
    return algorithm == Algorithm.TOKEN_BUCKET
        || algorithm == Algorithm.GCRA
        || algorithm == Algorithm.LEAKY_BUCKET;
  }

  /** Serves the request from this node's batch, or {@code null} when the batch cannot. */
  RateDecision takeLocally(RateRequest request) {
    Held batch = held.get(Rule.of(request));
    if (batch == null) {
      return null;
    }
    synchronized (batch) {
      if (batch.left < request.cost()) {
        return null;
      }
      batch.left -= request.cost();
      return RateDecision.allowed(request.limit().limit(), batch.left, 0);
    }
  }

  /** How many permits to ask Redis for when the batch ran dry. */
  long wanted(RateRequest request) {
    return Math.max(size, request.cost());
  }

  /** Redis's answer to {@link RateScripts#take}: the request takes its cost, the rest is parked. */
  RateDecision keep(RateRequest request, List<Object> reply) {
    RateDecision decision = RateScripts.decision(request, reply);
    if (!decision.allowed()) {
      return decision;
    }
    long taken = RateScripts.number(reply, 5);
    long extra = taken - request.cost();
    if (extra < 0) {
      // fewer than the request needs: park what came and reject, rather than admit on credit
      park(request, taken);
      return RateDecision.rejected(
          request.limit().limit(),
          request.limit().nanosPerPermit() * -extra,
          decision.resetAfterNanos());
    }
    long left = park(request, extra);
    return new RateDecision(true, decision.limit(), left, 0, decision.resetAfterNanos(), 0);
  }

  /** A refund: the request's permits go back into this node's batch. */
  void putBack(RateRequest request) {
    park(request, request.cost());
  }

  private long park(RateRequest request, long permits) {
    while (true) {
      Held batch = held.computeIfAbsent(Rule.of(request), rule -> new Held());
      // a batch being given back is retired under its lock; then start a fresh one
      synchronized (batch) {
        if (!batch.retired) {
          batch.left += permits;
          return batch.left;
        }
      }
    }
  }

  /** Gives every parked permit back to Redis (the sync), best effort; completes when sent back. */
  CompletableFuture<Void> giveBack(
      RedisScriptingAsyncCommands<String, String> redis, RateScripts scripts) {
    List<CompletableFuture<?>> sent = new ArrayList<>();
    for (Map.Entry<Rule, Held> entry : held.entrySet()) {
      Held batch = entry.getValue();
      long left;
      synchronized (batch) {
        batch.retired = true;
        left = batch.left;
        batch.left = 0;
      }
      held.remove(entry.getKey(), batch);
      if (left > 0) {
        Rule rule = entry.getKey();
        sent.add(scripts.refund(
            redis,
            new RateRequest(rule.ruleId(), rule.key(), rule.algorithm(), rule.limit(), left)));
      }
    }
    return CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new));
  }

  private record Rule(String ruleId, String key, Algorithm algorithm, RateLimit limit) {
    static Rule of(RateRequest request) {
      return new Rule(request.ruleId(), request.key(), request.algorithm(), request.limit());
    }
  }

  /** Permits of one rule and actor parked on this node; guarded by its own lock. */
  private static final class Held {
    long left;
    boolean retired;
  }
}
