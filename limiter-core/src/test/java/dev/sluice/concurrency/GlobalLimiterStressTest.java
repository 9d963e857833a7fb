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
          .maxConcurrency(3)
          .maxQueue(8)
          .queueTimeout(Duration.ofMillis(20))
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
}
