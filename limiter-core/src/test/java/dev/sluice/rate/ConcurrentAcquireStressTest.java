package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Randomized stress: threads race on a few keys, acquiring and refunding random costs while time is
 * frozen. Invariant: with no time passing, what every key admitted minus what was refunded is never
 * more than its capacity, and exactly its capacity once the survivors drain it.
 */
@Tag("stress")
class ConcurrentAcquireStressTest {

  private static final int THREADS = 4;
  private static final long CAPACITY = 500;

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void racingThreadsNeverTakeMoreThanTheCapacity(Algorithm algorithm) throws Exception {
    VirtualTime time = new VirtualTime();
    RateLimiter limiter =
        RateLimiter.of(algorithm, RateLimit.of(CAPACITY, Duration.ofHours(1)), time);
    String[] keys = {"a", "b", "c"};
    AtomicLong[] held = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    long base = Seeds.seed();
    for (int t = 0; t < THREADS; t++) {
      long seed = base + t;
      Thread thread = new Thread(() -> {
        Random random = new Random(seed);
        await(start);
        for (int i = 0; i < 20_000; i++) {
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
      });
      thread.start();
      threads.add(thread);
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join(20_000);
    }
    for (int key = 0; key < keys.length; key++) {
      long rest = 0;
      while (limiter.tryAcquire(keys[key]).allowed()) {
        rest++;
      }
      assertThat(held[key].get() + rest).as("seed %d, key %s", base, keys[key]).isEqualTo(CAPACITY);
    }
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
