package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.InMemoryPermitStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Nodes racing for one store's leases with grants, releases, cancels and timeouts in every order:
 * never more jobs running than the limit, and afterwards no lease, ticket or local permit left.
 */
@Tag("stress")
class GlobalLimiterStressTest {

  @Test
  void neverMoreRunningThanTheLimitAndNothingLeaks() throws Exception {
    InMemoryPermitStore store = new InMemoryPermitStore();
    ExecutorService executor = Executors.newFixedThreadPool(4);
    List<ConcurrencyLimiter> nodes = new ArrayList<>();
    for (int n = 0; n < 3; n++) {
      nodes.add(ConcurrencyLimiter.builder("stress")
          .spec(LimiterSpec.custom()
              .maxConcurrency(3)
              .maxQueue(8)
              .queueTimeout(Duration.ofMillis(20))
              .build())
          .executor(executor)
          .permitStore(store)
          .build());
    }
    AtomicInteger running = new AtomicInteger();
    AtomicInteger maxRunning = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    ExecutorService callers = Executors.newFixedThreadPool(6);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int t = 0; t < 6; t++) {
        ConcurrencyLimiter node = nodes.get(t % 3);
        done.add(callers.submit(() -> {
          ThreadLocalRandom random = ThreadLocalRandom.current();
          for (int i = 0; i < 300; i++) {
            CompletableFuture<Permit> future = node.acquire();
            if (random.nextInt(5) == 0) {
              future.cancel(false);
            }
            try {
              Permit permit = future.get(5, TimeUnit.SECONDS);
              maxRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
              admitted.incrementAndGet();
              if (random.nextBoolean()) {
                Thread.onSpinWait();
              }
              running.decrementAndGet();
              permit.release();
              if (random.nextInt(4) == 0) {
                permit.release();
              }
            } catch (java.util.concurrent.ExecutionException
                | java.util.concurrent.CancellationException rejectedOrCancelled) {
              // rejections and cancels are part of the mix
            }
          }
          return null;
        }));
      }
      for (Future<?> f : done) {
        f.get(60, TimeUnit.SECONDS);
      }
    } finally {
      callers.shutdownNow();
    }

    assertThat(maxRunning.get()).isLessThanOrEqualTo(3);
    assertThat(store.maxHeldSeen()).isLessThanOrEqualTo(3);
    assertThat(admitted.get()).isPositive();
    await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
      assertThat(store.heldNow("stress")).as("leases held").isZero();
      assertThat(store.waiting("stress")).as("tickets in the store's line").isZero();
      for (ConcurrencyLimiter node : nodes) {
        assertThat(node.snapshot().inFlight()).as("in flight on %s", node).isZero();
        assertThat(node.snapshot().queued()).as("queued on %s", node).isZero();
      }
    });
    nodes.forEach(ConcurrencyLimiter::shutdown);
    executor.shutdownNow();
  }
  /**
   * Two nodes of one global limiter (fair queue, keys, costs, early rejection on one node) under
   * callers that never wait for their answers, and a releaser that gives permits back in random
   * batches: {@code queued} never exceeds {@code maxQueue} at any observation of either node. A
   * node whose local permits all wait for leases the other node holds is where it would.
   */
  @Test
  // each future's outcome is counted by its callback; the future chained on it is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  void queuedNeverExceedsMaxQueueOnAnyNode() throws Exception {
    int maxQueue = 6;
    InMemoryPermitStore store = new InMemoryPermitStore();
    ExecutorService executor = Executors.newFixedThreadPool(3);
    List<ConcurrencyLimiter> nodes = new ArrayList<>();
    for (int n = 0; n < 2; n++) {
      nodes.add(ConcurrencyLimiter.builder("bounded")
          .spec(LimiterSpec.custom()
              .maxConcurrency(4)
              .maxQueue(maxQueue)
              .queueTimeout(Duration.ofMillis(50))
              .queue(QueueSpec.fair(FairQueueConfig.DEFAULT))
              .rejectEarly(n == 1)
              .build())
          .executor(executor)
          .permitStore(store)
          .build());
    }
    java.util.concurrent.ConcurrentLinkedQueue<Permit> held =
        new java.util.concurrent.ConcurrentLinkedQueue<>();
    java.util.concurrent.atomic.AtomicBoolean done =
        new java.util.concurrent.atomic.AtomicBoolean();
    AtomicInteger maxQueued = new AtomicInteger();
    AtomicInteger observations = new AtomicInteger();
    AtomicInteger admitted = new AtomicInteger();
    AtomicInteger queueFull = new AtomicInteger();
    ExecutorService threads = Executors.newFixedThreadPool(6);
    try {
      Future<?> observer = threads.submit(() -> {
        while (!done.get()) {
          for (ConcurrencyLimiter node : nodes) {
            maxQueued.accumulateAndGet(node.snapshot().queued(), Math::max);
            observations.incrementAndGet();
          }
          Thread.onSpinWait();
        }
        return null;
      });
      Future<?> releaser = threads.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!done.get() || !held.isEmpty()) {
          // hold a random number of permits, then give a random batch back
          if (held.size() > random.nextInt(10)) {
            for (int i = random.nextInt(1, 4); i > 0; i--) {
              Permit permit = held.poll();
              if (permit != null) {
                permit.release();
              }
            }
          }
          Thread.onSpinWait();
        }
        return null;
      });
      List<Future<?>> callers = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        ConcurrencyLimiter node = nodes.get(t % 2);
        callers.add(threads.submit(() -> {
          ThreadLocalRandom random = ThreadLocalRandom.current();
          for (int i = 0; i < 3_000; i++) {
            Caller caller = Caller.of("k" + random.nextInt(3)).withCost(random.nextInt(1, 3));
            CompletableFuture<Permit> future = node.acquire(caller);
            future.whenComplete((permit, error) -> {
              if (permit != null) {
                admitted.incrementAndGet();
                held.add(permit);
              } else if (error instanceof ConcurrencyRejectedException rejected
                  && rejected.outcome() == Outcome.QUEUE_FULL) {
                queueFull.incrementAndGet();
              }
            });
            if (random.nextInt(20) == 0) {
              future.cancel(false);
            }
            if (random.nextInt(4) == 0) {
              Thread.onSpinWait();
            }
          }
          return null;
        }));
      }
      for (Future<?> f : callers) {
        f.get(60, TimeUnit.SECONDS);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> nodes.stream()
              .allMatch(node -> node.snapshot().queued() == 0
                  && node.snapshot().inFlight() == 0
                  && held.isEmpty()));
      done.set(true);
      observer.get(10, TimeUnit.SECONDS);
      releaser.get(10, TimeUnit.SECONDS);
    } finally {
      done.set(true);
      threads.shutdownNow();
    }

    assertThat(observations.get()).isPositive();
    assertThat(admitted.get()).isPositive();
    assertThat(queueFull.get()).as("the queues were full at times").isPositive();
    assertThat(maxQueued.get()).as("most callers queued on one node").isLessThanOrEqualTo(maxQueue);
    assertThat(store.heldNow("bounded")).isZero();
    nodes.forEach(ConcurrencyLimiter::shutdown);
    executor.shutdownNow();
  }
}
