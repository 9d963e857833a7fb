package dev.sluice.redis;

import dev.sluice.rate.RateDecision;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/** Opens limiter "nodes" (each its own Lettuce client) for tests, and closes them all. */
final class Nodes implements AutoCloseable {

  private final List<RedisStores> open = new java.util.concurrent.CopyOnWriteArrayList<>();

  RedisStores open(URI uri, Duration timeout, int expectedNodes, FailurePolicy policy) {
    return open(
        settings(uri, timeout, expectedNodes, policy, NanoClock.system()), Scheduler.system());
  }

  /**
   * A node past its start-up: its calls are bounded by {@code sluice.redis.timeout} from the first
   * (see {@link CallBound}), so the faults a test makes are found as on a node that has run a while.
   */
  RedisStores open(StoreSettings settings, Scheduler scheduler) {
    RedisStores stores = openStarting(settings, scheduler);
    stores.started();
    return stores;
  }

  /**
   * A node past its start-up whose scheduler and breaker both run on {@code time}: Redis, once down,
   * stays down until the test moves time past {@link Guard#OPEN_FOR}, and the probes that find it
   * back run when it does.
   */
  RedisStores openOn(StoreSettings settings, VirtualTime time) {
    RedisStores stores = new RedisStores(settings, time, time);
    stores.connect(settings);
    open.add(stores);
    stores.started();
    return stores;
  }

  /** A node that has just started, with the start-up allowance of {@link CallBound}. */
  RedisStores openStarting(StoreSettings settings, Scheduler scheduler) {
    RedisStores stores = new RedisStores(settings, scheduler);
    stores.connect(settings);
    open.add(stores);
    return stores;
  }

  static StoreSettings settings(
      URI uri, Duration timeout, int expectedNodes, FailurePolicy policy, NanoClock clock) {
    return new StoreSettings(uri, timeout, expectedNodes, policy, clock);
  }

  /** One decision, waited for at most {@code bound}; a caller that sees an exception fails here. */
  static RateDecision decide(RedisStores node, RateRequest request, Duration bound) {
    try {
      return node.rates()
          .tryAcquire(List.of(request))
          .toCompletableFuture()
          .get(bound.toNanos(), TimeUnit.NANOSECONDS)
          .get(0);
    } catch (Exception e) {
      throw new AssertionError("a decision must neither fail nor hang: " + e, e);
    }
  }

  /**
   * Every thread of every node decides {@code request} until {@code attempts} are used up; returns
   * how many were admitted. Any exception or hang of a decision fails the test.
   */
  static long hammer(
      List<RedisStores> nodes,
      int threadsPerNode,
      RateRequest request,
      int attempts,
      Duration bound)
      throws Exception {
    AtomicInteger left = new AtomicInteger(attempts);
    AtomicLong admitted = new AtomicLong();
    ExecutorService threads = Executors.newFixedThreadPool(nodes.size() * threadsPerNode);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (RedisStores node : nodes) {
        for (int t = 0; t < threadsPerNode; t++) {
          running.add(threads.submit(() -> {
            while (left.getAndDecrement() > 0) {
              if (decide(node, request, bound).allowed()) {
                admitted.incrementAndGet();
              }
            }
          }));
        }
      }
      for (Future<?> thread : running) {
        thread.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }
    return admitted.get();
  }

  @Override
  public void close() {
    open.forEach(RedisStores::close);
  }
}
