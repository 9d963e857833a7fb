package dev.sluice.redis;

import dev.sluice.rate.RateDecision;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.NanoClock;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.api.async.RedisStringAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Global rate decisions in Redis: one script call per rule, the calls of one request written
 * back-to-back on the multiplexed connection without waiting in between (one pipelined round trip),
 * the whole request bounded by the store timeout. Whatever fails (no connection, a timeout, an error
 * reply) is decided by {@link LocalShare} instead; nothing reaches the caller as an exception.
 *
 * <p>The returned stage completes on Lettuce's I/O thread: callers should not block in it.
 */
final class RedisRateStore implements RateStore {

  private static final Logger LOG = LoggerFactory.getLogger(RedisRateStore.class);
  /** See {@link #askEpoch}; in Redis Cluster it lives on one master, whose loss it reports. */
  static final String EPOCH_KEY = "sluice:epoch";
  private static final String LOST = "";

  private final Link link;
  private final Guard guard;
  private final RateScripts scripts;
  private final LocalShare local;
  private final Recent recent;
  private final NanoClock clock;
  private final long timeoutNanos;
  /**
   * The epoch of the Redis last talked to: null before the first answer, {@link #LOST} between
   * finding it gone and learning the new one. Changed by CAS only, so one loss is charged once.
   */
  private final AtomicReference<String> epoch = new AtomicReference<>();
  /** Set when Redis goes down: calls ask for the epoch before deciding until one answer came. */
  private volatile boolean recovering;
  /** Batched mode, or {@code null}. */
  private final Batches batches;

  RedisRateStore(Link link, Guard guard, RateScripts scripts, LocalShare local, Recent recent,
      NanoClock clock, long timeoutNanos, Batches batches) {
    this.link = link;
    this.guard = guard;
    this.scripts = scripts;
    this.local = local;
    this.recent = recent;
    this.clock = clock;
    this.timeoutNanos = timeoutNanos;
    this.batches = batches;
  }

  @Override
  public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
    if (requests.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    RateDecision[] served = batches == null ? null : fromBatches(requests);
    if (served != null && allServed(served)) {
      return CompletableFuture.completedFuture(List.of(served));
    }
    if (!guard.tryEnter()) {
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    long start = System.nanoTime();
    try {
      RedisScriptingAsyncCommands<String, String> redis = link.commands();
      if (redis == null) {
        guard.failed(start, new IllegalStateException("not connected"));
        return CompletableFuture.completedFuture(decideLocally(requests, served));
      }
      // written before this request's scripts on the same connection, so Redis counts them first
      payDebts(redis);
      if (recovering) {
        // back after an outage: learn whether Redis lost its counts (and charge them again)
        // before deciding anything, at the cost of one round trip on the first calls
        return askEpoch(redis).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
            .handle((ignored, error) -> error)
            .thenCompose(error -> {
              if (error != null) {
                guard.failed(start, error);
                return CompletableFuture.completedFuture(decideLocally(requests, served));
              }
              return decideInRedis(redis, requests, served, start);
            });
      }
      askEpoch(redis);
      return decideInRedis(redis, requests, served, start);
    } catch (RuntimeException e) {
      // a bug or a Lettuce surprise must not become a 500: count it against Redis and degrade
      guard.failed(start, e);
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
  }

  private CompletableFuture<List<RateDecision>> decideInRedis(
      RedisScriptingAsyncCommands<String, String> redis, List<RateRequest> requests,
      RateDecision[] served, long start) {
    @SuppressWarnings("unchecked")
    CompletableFuture<RateDecision>[] parts = new CompletableFuture[requests.size()];
    try {
      for (int i = 0; i < parts.length; i++) {
        RateRequest request = requests.get(i);
        if (served != null && served[i] != null) {
          parts[i] = CompletableFuture.completedFuture(served[i]);
        } else if (batches != null && Batches.batchable(request)) {
          parts[i] = scripts.take(redis, request, batches.wanted(request))
              .thenApply(reply -> batches.keep(request, reply));
        } else {
          parts[i] = scripts.acquire(redis, request)
              .thenApply(reply -> RateScripts.decision(request, reply));
        }
      }
    } catch (RuntimeException e) {
      guard.failed(start, e);
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    return CompletableFuture.allOf(parts)
        .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
        .handle((ignored, error) -> {
          if (error == null) {
            guard.succeeded(start);
          } else {
            guard.failed(start, error);
            LOG.debug("rate decision in Redis failed; decided locally", error);
          }
          return collect(requests, parts);
        });
  }

  /** Redis went down: the first calls after it comes back ask for its epoch before deciding. */
  void outageStarted() {
    recovering = true;
  }

  /**
   * Compensate: what this node admitted on its own while Redis was down is charged to Redis now,
   * ahead of this request, so the nodes together do not admit it a second time.
   */
  private void payDebts(RedisScriptingAsyncCommands<String, String> redis) {
    for (RateRequest owed : local.takeDebts()) {
      scripts.charge(redis, owed).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
          .whenComplete((reply, error) -> {
            if (error != null) {
              local.stillOwed(owed);
            }
          });
    }
  }

  /**
   * Notices that Redis lost its counts (restarted without persistence, FLUSHALL): the epoch key, a
   * random value the first node to find it missing writes, is gone or changed. Then everything
   * this node admitted in the last period is charged again, once per loss. A plain GET (not a
   * script) pipelined with every request's decisions: the first answer after a loss reports it,
   * so only the decisions already in flight are made on the emptied state.
   */
  @SuppressWarnings("unchecked")
  private CompletableFuture<Void> askEpoch(RedisScriptingAsyncCommands<String, String> redis) {
    if (!(redis instanceof RedisStringAsyncCommands<?, ?>)) {
      recovering = false;
      return CompletableFuture.completedFuture(null);
    }
    RedisStringAsyncCommands<String, String> strings = (RedisStringAsyncCommands<String, String>) redis;
    CompletableFuture<String> asked;
    try {
      asked = strings.get(EPOCH_KEY).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
    return asked.orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).thenCompose(current -> {
      String known = epoch.get();
      if (current == null) {
        // gone: charge at once (before the new value is even written), then write one
        if (known != null && !known.equals(LOST) && epoch.compareAndSet(known, LOST)) {
          lostState(redis);
        }
        return strings.setnx(EPOCH_KEY, Long.toHexString(ThreadLocalRandom.current().nextLong()))
            .thenCompose(written -> strings.get(EPOCH_KEY)).toCompletableFuture()
            .thenAccept(this::learnEpoch);
      }
      if (known != null && !known.equals(LOST) && !known.equals(current)
          && epoch.compareAndSet(known, current)) {
        lostState(redis); // another node found it gone first and wrote a new one
      }
      learnEpoch(current);
      return CompletableFuture.completedFuture(null);
    });
  }

  /** Remembers the current epoch unless a change is still to be charged. */
  private void learnEpoch(String current) {
    if (current == null) {
      return;
    }
    String known = epoch.get();
    if (known == null || known.equals(LOST)) {
      epoch.compareAndSet(known, current);
    }
    recovering = false;
  }

  private void lostState(RedisScriptingAsyncCommands<String, String> redis) {
    local.takeDebts(); // included in the recent counts charged here
    var charges = recent.charges(clock.nanoTime(), false);
    LOG.warn("Redis at {} lost its counts (restart or FLUSHALL): charging the {} rule and actor "
        + "pair(s) this node used in the last period", link.where(), charges.size());
    for (RateRequest charge : charges) {
      try {
        scripts.charge(redis, charge).orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
            .whenComplete((reply, error) -> {});
      } catch (RuntimeException e) {
        LOG.debug("charging {} failed", charge.ruleId(), e);
      }
    }
  }

  /** Batched mode: what this node's batches can answer without Redis (null where they cannot). */
  private RateDecision[] fromBatches(List<RateRequest> requests) {
    RateDecision[] served = new RateDecision[requests.size()];
    for (int i = 0; i < served.length; i++) {
      RateRequest request = requests.get(i);
      if (Batches.batchable(request)) {
        served[i] = batches.takeLocally(request);
      }
    }
    return served;
  }

  private static boolean allServed(RateDecision[] served) {
    for (RateDecision decision : served) {
      if (decision == null) {
        return false;
      }
    }
    return true;
  }

  @Override
  public CompletionStage<Void> refund(List<RateRequest> requests) {
    if (requests.isEmpty()) {
      return CompletableFuture.completedFuture(null);
    }
    RedisScriptingAsyncCommands<String, String> redis =
        guard.state() == RedisState.UP ? link.commands() : null;
    if (redis == null) {
      // the permits were most likely taken locally while Redis was down: give them back there
      requests.forEach(local::refund);
      return CompletableFuture.completedFuture(null);
    }
    if (batches != null && requests.stream().allMatch(Batches::batchable)) {
      // the permits were counted in Redis when the batch was taken: back into the batch with them
      requests.forEach(batches::putBack);
      return CompletableFuture.completedFuture(null);
    }
    try {
      CompletableFuture<?>[] parts = new CompletableFuture[requests.size()];
      long now = clock.nanoTime();
      for (int i = 0; i < parts.length; i++) {
        parts[i] = scripts.refund(redis, requests.get(i));
        recent.subtract(requests.get(i), now);
      }
      return CompletableFuture.allOf(parts)
          .orTimeout(timeoutNanos, TimeUnit.NANOSECONDS)
          .handle((ignored, error) -> {
            if (error != null) {
              LOG.debug("refund in Redis failed; the permits come back when their state expires",
                  error);
            }
            return null;
          });
    } catch (RuntimeException e) {
      LOG.debug("refund in Redis failed", e);
      return CompletableFuture.completedFuture(null);
    }
  }

  /** Redis's answer where it came in time, the local decision where it did not. */
  private List<RateDecision> collect(List<RateRequest> requests,
      CompletableFuture<RateDecision>[] parts) {
    List<RateDecision> decisions = new ArrayList<>(parts.length);
    long now = clock.nanoTime();
    for (int i = 0; i < parts.length; i++) {
      CompletableFuture<RateDecision> part = parts[i];
      if (part.isDone() && !part.isCompletedExceptionally()) {
        RateDecision decision = part.join();
        if (decision.allowed()) {
          recent.add(requests.get(i), now); // counted again should Redis lose it
        }
        decisions.add(decision);
      } else {
        decisions.add(decideLocally(requests.get(i)));
      }
    }
    return decisions;
  }

  /** Without Redis: the batches' answers where there are some, the failure policy elsewhere. */
  private List<RateDecision> decideLocally(List<RateRequest> requests, RateDecision[] served) {
    List<RateDecision> decisions = new ArrayList<>(requests.size());
    for (int i = 0; i < requests.size(); i++) {
      decisions.add(served != null && served[i] != null ? served[i] : decideLocally(requests.get(i)));
    }
    return decisions;
  }

  private RateDecision decideLocally(RateRequest request) {
    guard.degradedDecision();
    try {
      return local.decide(request);
    } catch (RuntimeException e) {
      // the fallback must not turn into a 500 either; a local limiter that cannot decide (a bug,
      // a key it refuses) lets the request through rather than failing the caller
      LOG.warn("local decision for rule {} failed; allowing", request.ruleId(), e);
      return RateDecision.allowed(request.limit().limit(), 0, 0);
    }
  }

  @Override
  public String describe() {
    return guard.describe();
  }

  /** The connection belongs to {@link RedisStores}, which closes it. */
  @Override
  public void close() {}
}
