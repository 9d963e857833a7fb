package dev.sluice.rules;

import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimiter;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.NanoClock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A shared store in memory, standing for Redis in the engine's tests: counts per rule id and key,
 * answers when the test releases it (so that the asynchronous path is exercised), and records calls.
 */
final class InMemoryRateStore implements RateStore {

  private final NanoClock clock;
  private final Map<String, RateLimiter> counters = new ConcurrentHashMap<>();
  final List<List<RateRequest>> calls = new CopyOnWriteArrayList<>();
  final List<RateRequest> refunds = new CopyOnWriteArrayList<>();
  private final List<Runnable> held = new ArrayList<>();
  private boolean holding;

  InMemoryRateStore(NanoClock clock) {
    this.clock = clock;
  }

  /** Answers only when {@link #release()} is called. */
  synchronized InMemoryRateStore holding() {
    holding = true;
    return this;
  }

  synchronized void release() {
    holding = false;
    held.forEach(Runnable::run);
    held.clear();
  }

  @Override
  public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
    calls.add(List.copyOf(requests));
    CompletableFuture<List<RateDecision>> answer = new CompletableFuture<>();
    Runnable decide = () -> {
      List<RateDecision> decisions = new ArrayList<>();
      for (RateRequest request : requests) {
        decisions.add(counter(request).tryAcquire(request.key(), request.cost()));
      }
      answer.complete(decisions);
    };
    synchronized (this) {
      if (holding) {
        held.add(decide);
        return answer;
      }
    }
    decide.run();
    return answer;
  }

  @Override
  public CompletionStage<Void> refund(List<RateRequest> requests) {
    for (RateRequest request : requests) {
      refunds.add(request);
      counter(request).refund(request.key(), request.cost());
    }
    return CompletableFuture.completedFuture(null);
  }

  private RateLimiter counter(RateRequest request) {
    return counters.computeIfAbsent(
        request.ruleId(), id -> RateLimiter.of(request.algorithm(), request.limit(), clock));
  }

  @Override
  public String describe() {
    return "memory";
  }

  @Override
  public void close() {}
}
