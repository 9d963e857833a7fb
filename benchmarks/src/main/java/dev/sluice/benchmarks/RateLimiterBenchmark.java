package dev.sluice.benchmarks;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.rate.RateOutcome;
import io.github.bucket4j.Bucket;
import io.github.resilience4j.ratelimiter.RateLimiterConfig;
import io.github.resilience4j.ratelimiter.internal.AtomicRateLimiter;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Time per rate decision, Sluice beside its peers in one class and run. Every limit is huge, so
 * every call is allowed: this measures the decision path (read the clock, refill, take a permit),
 * not the cheaper rejection. Single key: one shared limiter, on 1 and on 2 threads (the 2-thread
 * variants contend on one key). Keyed: 100,000 keys, each thread walking them in turn, which is
 * the lookup plus the decision a per-IP or per-account rule pays.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class RateLimiterBenchmark {

  static final int KEYS = 100_000;
  // a billion permits a second and a bucket of 10^15: nothing a benchmark can drain
  static final long RATE = 1_000_000_000L;
  static final long CAPACITY = 1_000_000_000_000_000L;

  RateLimiter sluice;
  RateLimiter sluiceUnkeyed;
  Bucket bucket4j;
  AtomicRateLimiter resilience4j;
  com.google.common.util.concurrent.RateLimiter guava;
  RateLimiter sluiceKeyed;
  ConcurrentHashMap<String, Bucket> bucket4jKeyed;
  /**
   * The floor of any keyed limiter on a map: the same keys, each to a counter that a call looks up
   * and increments (one lookup and one atomic write per call, no decision).
   */
  ConcurrentHashMap<String, java.util.concurrent.atomic.AtomicLong> mapKeyed;

  String[] keys;
  /** The same keys in a random order (seeded): a per-IP stream does not come in insertion order. */
  String[] shuffled;
  /**
   * Equal copies of {@link #shuffled}, made after the maps were filled, in that order: as a
   * request's key is, a new string equal to the stored one, so a lookup compares their text.
   */
  String[] fresh;

  @Setup
  public void setUp() {
    RateLimit limit = new RateLimit(RATE, Duration.ofSeconds(1), CAPACITY);
    sluice = RateLimiter.builder(Algorithm.TOKEN_BUCKET, limit).build();
    sluiceUnkeyed = RateLimiter.builder(Algorithm.TOKEN_BUCKET, limit).unkeyed().build();
    bucket4j = newBucket();
    resilience4j = new AtomicRateLimiter(
        "bench",
        RateLimiterConfig.custom()
            .limitForPeriod(Integer.MAX_VALUE)
            .limitRefreshPeriod(Duration.ofMillis(500))
            .timeoutDuration(Duration.ZERO)
            .build());
    guava = com.google.common.util.concurrent.RateLimiter.create(1e12);
    sluiceKeyed =
        RateLimiter.builder(Algorithm.TOKEN_BUCKET, limit).maxKeys(2L * KEYS).build();
    bucket4jKeyed = new ConcurrentHashMap<>();
    mapKeyed = new ConcurrentHashMap<>();
    keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "198.51." + (i >> 8) + "." + (i & 0xff) + "#" + i;
      sluiceKeyed.tryAcquire(keys[i]);
      bucket4jKeyed.computeIfAbsent(keys[i], k -> newBucket()).tryConsume(1);
      // built in the same loop, so its entries lie among the others in memory as theirs do
      mapKeyed.put(keys[i], new java.util.concurrent.atomic.AtomicLong());
    }
    shuffled = keys.clone();
    java.util.Collections.shuffle(java.util.Arrays.asList(shuffled), new java.util.Random(42));
    fresh = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      fresh[i] = new String(shuffled[i].toCharArray());
    }
  }

  private static Bucket newBucket() {
    return Bucket.builder()
        .addLimit(l -> l.capacity(CAPACITY).refillGreedy(RATE, Duration.ofSeconds(1)))
        .build();
  }

  /** Each thread's position in the key space, and its reused decision holder. */
  @State(Scope.Thread)
  public static class Cursor {
    int next = (int) (Thread.currentThread().getId() * 7919 % KEYS);
    final RateOutcome outcome = new RateOutcome();

    String key(String[] keys) {
      int i = next;
      next = i + 1 == KEYS ? 0 : i + 1;
      return keys[i];
    }
  }

  @Benchmark
  @Threads(1)
  public boolean sluice() {
    return sluice.tryAcquire("key", 1).allowed();
  }

  /** The same decision written into a holder the thread reuses: no object per decision. */
  @Benchmark
  @Threads(1)
  public boolean sluiceInPlace(Cursor cursor) {
    return sluice.tryAcquire("key", 1, cursor.outcome);
  }

  /** One quota for every key (a rule with {@code actor: all}): no map. */
  @Benchmark
  @Threads(1)
  public boolean sluiceUnkeyed() {
    return sluiceUnkeyed.tryAcquire("key", 1).allowed();
  }

  @Benchmark
  @Threads(1)
  public boolean bucket4j() {
    return bucket4j.tryConsume(1);
  }

  @Benchmark
  @Threads(1)
  public boolean resilience4j() {
    return resilience4j.acquirePermission();
  }

  @Benchmark
  @Threads(1)
  public boolean guava() {
    return guava.tryAcquire();
  }

  @Benchmark
  @Threads(2)
  public boolean sluice2Threads() {
    return sluice.tryAcquire("key", 1).allowed();
  }

  @Benchmark
  @Threads(2)
  public boolean sluiceUnkeyed2Threads() {
    return sluiceUnkeyed.tryAcquire("key", 1).allowed();
  }

  @Benchmark
  @Threads(2)
  public boolean bucket4j2Threads() {
    return bucket4j.tryConsume(1);
  }

  @Benchmark
  @Threads(2)
  public boolean resilience4j2Threads() {
    return resilience4j.acquirePermission();
  }

  @Benchmark
  @Threads(2)
  public boolean guava2Threads() {
    return guava.tryAcquire();
  }

  /** Sluice's keyed limiter: bounded (at twice the keys walked, so no eviction runs), idle expiry on. */
  @Benchmark
  @Threads(1)
  public boolean sluiceKeyed(Cursor cursor) {
    return sluiceKeyed.tryAcquire(cursor.key(keys), 1).allowed();
  }

  /** {@link #sluiceKeyed} with the decision written into the thread's holder. */
  @Benchmark
  @Threads(1)
  public boolean sluiceKeyedInPlace(Cursor cursor) {
    return sluiceKeyed.tryAcquire(cursor.key(keys), 1, cursor.outcome);
  }

  /** Bucket4j has no keyed local limiter; this is the usual map of buckets, unbounded. */
  @Benchmark
  @Threads(1)
  public boolean bucket4jKeyed(Cursor cursor) {
    return bucket4jKeyed.computeIfAbsent(cursor.key(keys), k -> newBucket()).tryConsume(1);
  }

  /**
   * {@link #sluiceKeyedInPlace} with the keys visited in a random order. Walked in insertion order
   * the keys, map nodes and states of neighbouring keys lie close together in memory and the
   * hardware prefetcher streams them, which favours any layout that stores them in that order; in
   * a random order every decision pays its misses, as a real stream of clients does.
   */
  @Benchmark
  @Threads(1)
  public boolean sluiceKeyedShuffled(Cursor cursor) {
    return sluiceKeyed.tryAcquire(cursor.key(shuffled), 1, cursor.outcome);
  }

  /** {@link #bucket4jKeyed} in the same random order. */
  @Benchmark
  @Threads(1)
  public boolean bucket4jKeyedShuffled(Cursor cursor) {
    return bucket4jKeyed.computeIfAbsent(cursor.key(shuffled), k -> newBucket()).tryConsume(1);
  }

  /**
   * The floor in that order: a {@code ConcurrentHashMap} lookup of the same keys and an atomic
   * increment of the key's counter, no decision. What a keyed decision costs beyond it is the
   * decision's own work.
   */
  @Benchmark
  @Threads(1)
  public long mapKeyedShuffled(Cursor cursor) {
    return mapKeyed.get(cursor.key(shuffled)).incrementAndGet();
  }

  /**
   * {@link #sluiceKeyedShuffled} with a new string per key, equal to the stored one, as a request
   * builds its key: the lookup reads the stored key's text, and the key handed in was made last,
   * so it is the stored key that misses the cache.
   */
  @Benchmark
  @Threads(1)
  public boolean sluiceKeyedFresh(Cursor cursor) {
    return sluiceKeyed.tryAcquire(cursor.key(fresh), 1, cursor.outcome);
  }

  /** {@link #bucket4jKeyedShuffled} with the same new strings. */
  @Benchmark
  @Threads(1)
  public boolean bucket4jKeyedFresh(Cursor cursor) {
    return bucket4jKeyed.computeIfAbsent(cursor.key(fresh), k -> newBucket()).tryConsume(1);
  }

  /** {@link #mapKeyedShuffled} with the same new strings. */
  @Benchmark
  @Threads(1)
  public long mapKeyedFresh(Cursor cursor) {
    return mapKeyed.get(cursor.key(fresh)).incrementAndGet();
  }
}
