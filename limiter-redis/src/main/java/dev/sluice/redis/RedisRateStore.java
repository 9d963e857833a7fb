package dev.sluice.redis;

import dev.sluice.rate.RateDecision;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.NanoClock;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
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
  /** A script's answer that it decided nothing: the epoch was another (see {@link LossWatch}). */
  private static final RateDecision STALE = RateDecision.allowed(0, 0, 0);

  private final Link link;
  private final Guard guard;
  private final RateScripts scripts;
  private final LocalShare local;
  private final Recent recent;
  private final NanoClock clock;
  private final CallBound bound;
  private final LossWatch loss;
  /**
   * Redis Cluster only (elsewhere the scripts check the epoch): set when Redis goes down, so that
   * the first calls after it answers again ask for the epoch before deciding.
   */
  private volatile boolean recovering;
  /** Batched mode, or {@code null}. */
  private final Batches batches;

  /** Standalone Redis: the admissions whose writes a promoted replica may lack; else null. */
  private final Replication replication;
  /**
   * Standalone Redis: asks whether the master is a promoted replica (and charges what it lacks);
   * run before the first decisions after an outage. Set once by {@link RedisStores}.
   */
  private volatile java.util.function.Function<
          RedisScriptingAsyncCommands<String, String>, CompletableFuture<Void>>
      replicationCheck;
  /** Whether the next decisions run {@link #replicationCheck} first: at start, after an outage. */
  private volatile boolean checkReplication = true;

  RedisRateStore(
      Link link,
      Guard guard,
      RateScripts scripts,
      LocalShare local,
      Recent recent,
      NanoClock clock,
      LossWatch loss,
      CallBound bound,
      Batches batches,
      Replication replication) {
    this.replication = replication;
    this.link = link;
    this.guard = guard;
    this.scripts = scripts;
    this.local = local;
    this.recent = recent;
    this.clock = clock;
    this.bound = bound;
    this.batches = batches;
    this.loss = loss;
  }

  @Override
  public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
    return decide(requests, false);
  }

  /**
   * A fixed window's request counts its cost whatever the count (the script's mode 3; fixed windows
   * are never batched); another algorithm's is decided as {@link #tryAcquire} decides it, batches
   * included. Without Redis the failure policy decides, as for {@link #tryAcquire}.
   */
  @Override
  public CompletionStage<List<RateDecision>> countAndDecide(List<RateRequest> requests) {
    return decide(requests, true);
  }

  /** {@code counting}: {@link #countAndDecide}, else {@link #tryAcquire}. */
  private CompletionStage<List<RateDecision>> decide(List<RateRequest> requests, boolean counting) {
    if (requests.isEmpty()) {
      return CompletableFuture.completedFuture(List.of());
    }
    RateDecision[] served = batches == null ? null : fromBatches(requests);
    if (served != null && allServed(served)) {
      return CompletableFuture.completedFuture(List.of(served));
    }
    if (loss.settling()) {
      // Redis lost its counts a moment ago and the other nodes may not have charged theirs yet
      return CompletableFuture.completedFuture(decideLocally(requests, served));
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
      if (!loss.inScripts()) {
        return decideInCluster(redis, requests, served, start, counting);
      }
      var check = replicationCheck;
      if (checkReplication && check != null) {
        // back after an outage, perhaps on a promoted replica: what it lacks is charged (on this
        // connection, ahead of the decisions) before anything is decided on it
        return check
            .apply(redis)
            .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
            .handle((ignored, error) -> error)
            .thenCompose(error -> {
              if (error != null) {
                guard.failed(start, error);
                return CompletableFuture.completedFuture(decideLocally(requests, served));
              }
              checkReplication = false;
              return decideInRedis(redis, requests, served, start, counting);
            });
      }
      return decideInRedis(redis, requests, served, start, counting);
    } catch (RuntimeException e) {
      // a bug or a Lettuce surprise must not become a 500: count it against Redis and degrade
      guard.failed(start, e);
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
  }

  /**
   * Redis Cluster: the epoch key lives on one master, so it is asked for with a GET pipelined
   * beside the decisions rather than inside them.
   */
  // a failed epoch read is asked again beside the next request and by the idle poll
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<List<RateDecision>> decideInCluster(
      RedisScriptingAsyncCommands<String, String> redis,
      List<RateRequest> requests,
      RateDecision[] served,
      long start,
      boolean counting) {
    if (recovering) {
      // back after an outage: learn whether Redis lost its counts (and charge them again)
      // before deciding anything, at the cost of one round trip on the first calls
      return loss.ask(redis)
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .handle((ignored, error) -> error)
          .thenCompose(error -> {
            if (error != null) {
              guard.failed(start, error);
              return CompletableFuture.completedFuture(decideLocally(requests, served));
            }
            recovering = false;
            if (loss.settling()) {
              guard.succeeded(start); // Redis answered; it had lost its counts
              return CompletableFuture.completedFuture(decideLocally(requests, served));
            }
            return decideInRedis(redis, requests, served, start, counting);
          });
    }
    loss.ask(redis);
    return decideInRedis(redis, requests, served, start, counting);
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private CompletableFuture<List<RateDecision>> decideInRedis(
      RedisScriptingAsyncCommands<String, String> redis,
      List<RateRequest> requests,
      RateDecision[] served,
      long start,
      boolean counting) {
    CompletableFuture<RateDecision>[] parts;
    String known = loss.knownUnlessSettling();
    if (known == null) {
      guard.succeeded(start); // Redis answered; a loss was found since the check in tryAcquire
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    String epoch = loss.inScripts() ? known : null;
    try {
      parts = send(redis, requests, served, epoch, counting);
    } catch (RuntimeException e) {
      guard.failed(start, e);
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    return CompletableFuture.allOf(parts)
        .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
        .handle((ignored, error) -> {
          if (error == null) {
            guard.succeeded(start);
          } else {
            guard.failed(start, error);
            LOG.debug("rate decision in Redis failed; decided locally", error);
          }
          if (error == null && "".equals(epoch) && anyStale(parts)) {
            // this node had not learnt the epoch yet (it has now, from the refusal): once more
            return decideAgain(redis, requests, served, counting);
          }
          return CompletableFuture.completedFuture(collect(requests, parts));
        })
        .thenCompose(decisions -> decisions);
  }

  /** After learning the epoch: one more round trip, whose failures are decided locally. */
  private CompletableFuture<List<RateDecision>> decideAgain(
      RedisScriptingAsyncCommands<String, String> redis,
      List<RateRequest> requests,
      RateDecision[] served,
      boolean counting) {
    CompletableFuture<RateDecision>[] parts;
    String epoch = loss.knownUnlessSettling();
    if (epoch == null) {
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    try {
      parts = send(redis, requests, served, epoch, counting);
    } catch (RuntimeException e) {
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
    }
    return CompletableFuture.allOf(parts)
        .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
        .handle((ignored, error) -> collect(requests, parts));
  }

  /**
   * Sends one script call per request not served from a batch, with {@code epoch} ({@code null}:
   * unchecked, Redis Cluster); {@code counting}: each counts whatever the count.
   */
  private CompletableFuture<RateDecision>[] send(
      RedisScriptingAsyncCommands<String, String> redis,
      List<RateRequest> requests,
      RateDecision[] served,
      String epoch,
      boolean counting) {
    @SuppressWarnings({"unchecked", "rawtypes"}) // an array of a generic type is made raw
    CompletableFuture<RateDecision>[] parts = new CompletableFuture[requests.size()];
    for (int i = 0; i < parts.length; i++) {
      RateRequest request = requests.get(i);
      if (served != null && served[i] != null) {
        parts[i] = CompletableFuture.completedFuture(served[i]);
      } else if (batches != null && Batches.batchable(request)) {
        parts[i] = scripts
            .take(redis, request, batches.wanted(request), epoch)
            .thenApply(reply -> stale(reply, redis) ? STALE : batches.keep(request, reply));
      } else {
        parts[i] = (counting
                ? scripts.count(redis, request, epoch)
                : scripts.acquire(redis, request, epoch))
            .thenApply(reply -> stale(reply, redis) ? STALE : RateScripts.decision(request, reply));
      }
    }
    return parts;
  }

  @SuppressWarnings("ReferenceEquality") // STALE is a marker instance, never an answer of Redis
  private static boolean anyStale(CompletableFuture<RateDecision>[] parts) {
    for (CompletableFuture<RateDecision> part : parts) {
      if (part.join() == STALE) {
        return true;
      }
    }
    return false;
  }

  /** Whether the script refused to decide because Redis lost its counts; reports the loss. */
  private boolean stale(List<Object> reply, RedisScriptingAsyncCommands<String, String> redis) {
    String current = RateScripts.lostEpoch(reply);
    if (current == null) {
      return false;
    }
    loss.scriptSaw(current, redis);
    return true;
  }

  /** Sets what {@link #replicationCheck} runs (standalone Redis). */
  void checkReplicationWith(
      java.util.function.Function<
              RedisScriptingAsyncCommands<String, String>, CompletableFuture<Void>>
          check) {
    this.replicationCheck = check;
  }

  /**
   * Redis went down: the first calls after it comes back ask for its epoch (Redis Cluster) or
   * whether it is a promoted replica (standalone) before deciding.
   */
  void outageStarted() {
    recovering = true;
    checkReplication = true;
  }

  /** Whether this node has learnt the epoch of the Redis it talks to (see {@link LossWatch}). */
  boolean knowsEpoch() {
    return loss.learnt();
  }

  /**
   * Compensate: what this node admitted on its own while Redis was down is charged to Redis now,
   * ahead of this request (or, on a node that decides nothing, on the probe that finds Redis
   * answering again), so the nodes together do not admit it a second time; a charge not
   * answered before goes again, with the same id and the time of its admissions (see {@link
   * Debts}).
   */
  void payDebts(RedisScriptingAsyncCommands<String, String> redis) {
    for (Debts.Charge owed : local.takeDebts()) {
      charge(redis, owed);
    }
  }

  /** Counts {@code owed} in Redis; sent again, unchanged, if no answer comes. */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void charge(RedisScriptingAsyncCommands<String, String> redis, Debts.Charge owed) {
    try {
      scripts
          .charge(redis, owed, clock.nanoTime())
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .whenComplete((reply, error) -> {
            if (error != null) {
              local.unanswered(owed);
            }
          });
    } catch (RuntimeException e) {
      LOG.debug("charging {} failed", owed.request().ruleId(), e);
      local.unanswered(owed);
    }
  }

  /**
   * Redis lost its counts: the local shares start afresh (seeded on first use with what this node
   * admitted recently, as in an outage), and everything this node admitted in the last period is
   * charged again; the debts are part of it.
   */
  void lostState(RedisScriptingAsyncCommands<String, String> redis) {
    local.outageStarted();
    local.forgetDebts();
    long now = clock.nanoTime();
    var charges = recent.charges(now, false);
    LOG.info(
        "charging Redis at {} again with the {} rule and actor pair(s) this node used in the "
            + "last period",
        link.where(),
        charges.size());
    for (RateRequest charge : charges) {
      charge(redis, Debts.recentCharge(charge, now));
    }
  }

  /**
   * A promoted replica lacks the master's last writes: {@code promotion}'s admissions (or, when
   * they cannot be placed, everything recent) are charged again, dated as recent admissions.
   */
  void unreplicated(
      RedisScriptingAsyncCommands<String, String> redis, Replication.Promotion promotion) {
    long now = clock.nanoTime();
    LOG.warn(
        "Redis at {} is a promoted replica that may lack the old master's last writes: "
            + "charging it again with what this node admitted {} ({} rule and actor pair(s))",
        link.where(),
        promotion.all() ? "in the last " + Replication.KEPT + " polls" : "since its copy ended",
        promotion.charges().size());
    for (RateRequest charge : promotion.charges()) {
      charge(redis, Debts.recentCharge(charge, now));
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
      CompletableFuture<?>[] parts = new CompletableFuture<?>[requests.size()];
      long now = clock.nanoTime();
      for (int i = 0; i < parts.length; i++) {
        parts[i] = scripts.refund(redis, requests.get(i));
        recent.subtract(requests.get(i), now);
      }
      return CompletableFuture.allOf(parts)
          .orTimeout(bound.nanos(), TimeUnit.NANOSECONDS)
          .handle((ignored, error) -> {
            if (error != null) {
              LOG.debug(
                  "refund in Redis failed; the permits come back when their state expires", error);
            }
            return null;
          });
    } catch (RuntimeException e) {
      LOG.debug("refund in Redis failed", e);
      return CompletableFuture.completedFuture(null);
    }
  }

  /** Redis's answer where it came in time, the local decision where it did not. */
  @SuppressWarnings("ReferenceEquality") // STALE is a marker instance, never an answer of Redis
  private List<RateDecision> collect(
      List<RateRequest> requests, CompletableFuture<RateDecision>[] parts) {
    List<RateDecision> decisions = new ArrayList<>(parts.length);
    long now = clock.nanoTime();
    for (int i = 0; i < parts.length; i++) {
      CompletableFuture<RateDecision> part = parts[i];
      if (part.isDone() && !part.isCompletedExceptionally() && part.join() != STALE) {
        RateDecision decision = part.join();
        if (decision.allowed()) {
          RateRequest request = requests.get(i);
          Recent.Key key = Recent.Key.of(request); // one key for both records
          recent.add(key, request.cost(), now); // counted again should Redis lose it
          if (replication != null) {
            replication.admitted(key, request.cost());
          }
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
      decisions.add(
          served != null && served[i] != null ? served[i] : decideLocally(requests.get(i)));
    }
    return decisions;
  }

  private RateDecision decideLocally(RateRequest request) {
    guard.degradedDecision();
    try {
      // settling after a loss while Redis answers: the share, whatever the failure policy
      return loss.settling() && guard.state() == RedisState.UP
          ? local.decideOnShare(request)
          : local.decide(request);
    } catch (RuntimeException e) {
      // the fallback must not turn into a 500 either; a local limiter that cannot decide (a bug,
      // a key it refuses) lets the request through rather than failing the caller
      LOG.warn("local decision for rule {} failed; allowing", request.ruleId(), e);
      return RateDecision.allowed(request.limit().limit(), 0, 0);
    }
  }

  @Override
  public String describe() {
    return loss.describe(guard.describe());
  }

  /** The connection and the loss watch belong to {@link RedisStores}, which closes them. */
  @Override
  public void close() {}
}
