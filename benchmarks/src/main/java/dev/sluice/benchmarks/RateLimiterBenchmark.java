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
  /**
   * The same keys and decisions in one table of 64-byte slots, each holding its key's text and
   * state: what a lookup costs when it touches one cache line (see {@link InlineKeyTable}).
   */
  InlineKeyTable inlineKeyed;
  /** {@link #inlineKeyed} in half the slots (three in four taken): 8 MB instead of 16. */
  InlineKeyTable inlineDense;

  /**
   * 16 MB of longs, and {@link #KEYS} of its cache lines in a random order: {@link #oneRandomLine}
   * reads one line per call. The first long of every line is the index of another, all lines in
   * one random cycle: {@link #oneDependentLine} follows it, so each read waits for the one before,
   * as a lookup's steps wait for each other. Together: the memory's throughput and its latency.
   */
  long[] lines;

  int[] lineOrder;

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
    inlineKeyed = new InlineKeyTable(Integer.highestOneBit(KEYS) * 4, RATE, CAPACITY);
    inlineDense = new InlineKeyTable(Integer.highestOneBit(KEYS) * 2, RATE, CAPACITY);
    keys = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      keys[i] = "198.51." + (i >> 8) + "." + (i & 0xff) + "#" + i;
      sluiceKeyed.tryAcquire(keys[i]);
      bucket4jKeyed.computeIfAbsent(keys[i], k -> newBucket()).tryConsume(1);
      // built in the same loop, so its entries lie among the others in memory as theirs do
      mapKeyed.put(keys[i], new java.util.concurrent.atomic.AtomicLong());
      inlineKeyed.insert(keys[i], System.nanoTime());
      inlineDense.insert(keys[i], System.nanoTime());
    }
    lines = new long[2 * 1024 * 1024];
    lineOrder = new int[KEYS];
    java.util.Random random = new java.util.Random(42);
    for (int i = 0; i < KEYS; i++) {
      lineOrder[i] = random.nextInt(lines.length / 8) * 8;
    }
    int[] cycle = new int[lines.length / 8];
    for (int i = 0; i < cycle.length; i++) {
      cycle[i] = i * 8;
    }
    for (int i = cycle.length - 1; i > 0; i--) {
      int j = random.nextInt(i + 1);
      int swap = cycle[i];
      cycle[i] = cycle[j];
      cycle[j] = swap;
    }
    for (int i = 0; i < cycle.length; i++) {
      lines[cycle[i]] = cycle[(i + 1) % cycle.length];
    }
    shuffled = keys.clone();
    java.util.Collections.shuffle(java.util.Arrays.asList(shuffled), new java.util.Random(42));
    fresh = new String[KEYS];
    for (int i = 0; i < KEYS; i++) {
      fresh[i] = new String(shuffled[i].toCharArray());
      if (inlineKeyed.find(fresh[i]) < 0 || inlineKeyed.find(fresh[i] + "x") >= 0) {
        throw new IllegalStateException("the inline table lost or invented " + fresh[i]);
      }
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
    /** Where {@link #oneDependentLine} is in its cycle. */
    int line;
    /** Limit, remaining and reset of {@link #inlineKeyed}'s last decision. */
    final long[] figures = new long[3];

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

  /** {@link #sluiceKeyedShuffled}'s decisions in {@link InlineKeyTable}'s one-line slots. */
  @Benchmark
  @Threads(1)
  public boolean inlineKeyedShuffled(Cursor cursor) {
    return inlineKeyed.tryAcquire(cursor.key(shuffled), 1, cursor.figures);
  }

  /** {@link #sluiceKeyedFresh}'s decisions in {@link InlineKeyTable}'s one-line slots. */
  @Benchmark
  @Threads(1)
  public boolean inlineKeyedFresh(Cursor cursor) {
    return inlineKeyed.tryAcquire(cursor.key(fresh), 1, cursor.figures);
  }

  /**
   * {@link #inlineKeyedFresh}'s lookup alone, no clock and no decision: what the one-line slot
   * costs to find, against {@link #mapKeyedFresh}.
   */
  @Benchmark
  @Threads(1)
  public int inlineFindFresh(Cursor cursor) {
    return inlineKeyed.find(cursor.key(fresh));
  }

  /** {@link #inlineKeyedFresh} in {@link #inlineDense}'s fuller table. */
  @Benchmark
  @Threads(1)
  public boolean inlineDenseKeyedFresh(Cursor cursor) {
    return inlineDense.tryAcquire(cursor.key(fresh), 1, cursor.figures);
  }

  /** One read of a random cache line of 16 MB (see {@link #lines}): no key, no decision. */
  @Benchmark
  @Threads(1)
  public long oneRandomLine(Cursor cursor) {
    int i = cursor.next;
    cursor.next = i + 1 == KEYS ? 0 : i + 1;
    return lines[lineOrder[i]];
  }

  /** One read of a random cache line that names the next (see {@link #lines}): the latency. */
  @Benchmark
  @Threads(1)
  public int oneDependentLine(Cursor cursor) {
    int next = (int) lines[cursor.line];
    cursor.line = next;
    return next;
  }
}
