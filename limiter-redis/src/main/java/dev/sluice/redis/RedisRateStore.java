package dev.sluice.redis;

import dev.sluice.rate.RateDecision;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
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

  private final Link link;
  private final Guard guard;
  private final RateScripts scripts;
  private final LocalShare local;
  private final long timeoutNanos;
  /** Batched mode, or {@code null}. */
  private final Batches batches;

  RedisRateStore(Link link, Guard guard, RateScripts scripts, LocalShare local, long timeoutNanos,
      Batches batches) {
    this.link = link;
    this.guard = guard;
    this.scripts = scripts;
    this.local = local;
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
      @SuppressWarnings("unchecked")
      CompletableFuture<RateDecision>[] parts = new CompletableFuture[requests.size()];
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
    } catch (RuntimeException e) {
      // a bug or a Lettuce surprise must not become a 500: count it against Redis and degrade
      guard.failed(start, e);
      LOG.debug("rate decision in Redis failed", e);
      return CompletableFuture.completedFuture(decideLocally(requests, served));
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
      for (int i = 0; i < parts.length; i++) {
        parts[i] = scripts.refund(redis, requests.get(i));
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
    for (int i = 0; i < parts.length; i++) {
      CompletableFuture<RateDecision> part = parts[i];
      if (part.isDone() && !part.isCompletedExceptionally()) {
        decisions.add(part.join());
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
