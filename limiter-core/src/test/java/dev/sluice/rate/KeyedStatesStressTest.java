package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Randomized multi-threaded stress of the keyed store: sweeps race with decisions on the same
 * states, and new keys race for the last slots of the key bound.
 */
@Tag("stress")
class KeyedStatesStressTest {

  private static final int THREADS = 3;
  private static final long CAPACITY = 40;

  /**
   * Every round starts with every key full (time moved past the refill), so a sweep may retire a
   * key's state while decisions take from it; time is then frozen for the round. Whatever
   * interleaving, a key admits exactly its capacity in the round, like a fresh state: a permit taken
   * from a state the sweep dropped is neither lost (admitting more) nor counted twice.
   */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void sweepsRacingDecisionsNeverLetAKeyTakeMoreThanAFreshState(Algorithm algorithm)
      throws Exception {
    VirtualTime time = new VirtualTime();
    RateLimiter limiter =
        RateLimiter.of(algorithm, RateLimit.of(CAPACITY, Duration.ofHours(1)), time);
    String[] keys = {"a", "b"};
    AtomicLong[] held = {new AtomicLong(), new AtomicLong()};
    long base = Seeds.seed();
    int rounds = 150;
    CyclicBarrier start = new CyclicBarrier(THREADS + 2);
    CyclicBarrier end = new CyclicBarrier(THREADS + 2);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      long seed = base + t;
      threads.add(start(failure, () -> {
        Random random = new Random(seed);
        for (int round = 0; round < rounds; round++) {
          start.await();
          for (int i = 0; i < 40; i++) {
            int key = random.nextInt(keys.length);
            long cost = 1L + random.nextInt(3);
            if (limiter.tryAcquire(keys[key], cost).allowed()) {
              held[key].addAndGet(cost);
              if (random.nextInt(4) == 0) {
                held[key].addAndGet(-cost);
                limiter.refund(keys[key], cost);
              }
            }
          }
          end.await();
        }
      }));
    }
    threads.add(start(failure, () -> {
      for (int round = 0; round < rounds; round++) {
        start.await();
        for (int i = 0; i < 20; i++) {
          limiter.trackedKeys(); // a sweep, racing with the decisions
        }
        end.await();
      }
    }));
    for (int round = 0; round < rounds; round++) {
      time.advance(Duration.ofHours(3));
      // bounded waits: a failed racing thread must fail the test, not hang it
      start.await(60, TimeUnit.SECONDS);
      end.await(60, TimeUnit.SECONDS);
      for (int key = 0; key < keys.length; key++) {
        long rest = 0;
        while (limiter.tryAcquire(keys[key]).allowed()) {
          rest++;
        }
        assertThat(held[key].get() + rest)
            .as("seed %d, round %d, key %s", base, round, keys[key])
            .isEqualTo(CAPACITY);
        held[key].set(0);
      }
    }
    join(threads, failure);
  }

  /**
   * Threads flood a small bound with random new keys, refund, and move time on; the map never
   * holds more than {@code maxKeys} states, checked after calls on every thread.
   */
  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void theKeyBoundHoldsAfterEveryCallUnderConcurrentNewKeys(Algorithm algorithm) throws Exception {
    VirtualTime time = new VirtualTime();
    long maxKeys = 16;
    RateLimiter limiter = RateLimiter.builder(algorithm, RateLimit.of(5, Duration.ofSeconds(1)))
        .clock(time)
        .maxKeys(maxKeys)
        .build();
    long base = Seeds.seed();
    CyclicBarrier start = new CyclicBarrier(THREADS);
    AtomicReference<Throwable> failure = new AtomicReference<>();
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < THREADS; t++) {
      long seed = base + t;
      boolean timeKeeper = t == 0;
      threads.add(start(failure, () -> {
        Random random = new Random(seed);
        start.await();
        for (int i = 0; i < 20_000; i++) {
          String key = "ip-" + random.nextInt(200);
          if (limiter.tryAcquire(key, 1 + random.nextInt(2)).allowed() && random.nextInt(5) == 0) {
            limiter.refund(key, 1);
          }
          if (timeKeeper && random.nextInt(50) == 0) {
            time.advanceNanos(random.nextInt(300_000_000));
          }
          if (i % 64 == 0) {
            assertThat(limiter.trackedKeys()).as("seed %d", base).isLessThanOrEqualTo(maxKeys);
          }
        }
      }));
    }
    join(threads, failure);
    assertThat(limiter.trackedKeys()).as("seed %d", base).isLessThanOrEqualTo(maxKeys);
  }

  interface Body {
    void run() throws Exception;
  }

  private static Thread start(AtomicReference<Throwable> failure, Body body) {
    Thread thread = new Thread(() -> {
      try {
        body.run();
      } catch (Throwable e) {
        failure.compareAndSet(null, e);
      }
    });
    thread.setDaemon(true);
    thread.start();
    return thread;
  }

  private static void join(List<Thread> threads, AtomicReference<Throwable> failure)
      throws Exception {
    for (Thread thread : threads) {
      thread.join(60_000);
    }
    if (failure.get() != null) {
      throw new AssertionError("a racing thread failed", failure.get());
    }
  }
}
