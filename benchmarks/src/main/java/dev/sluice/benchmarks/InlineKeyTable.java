package dev.sluice.benchmarks;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A measuring instrument, not a limiter: the cheapest layout of keyed token-bucket state we could
 * think of, to learn what a decision at 100,000 keys costs when a lookup touches one cache line.
 *
 * <p>Each key has a 64-byte slot in one {@code long[]}: its hash and length, its token-bucket state
 * (the moment the bucket is full again, as {@code TokenBucket} keeps it), and its text packed eight
 * ASCII characters to a long (up to 48). A lookup hashes the caller's string, probes slots
 * linearly, and compares the packed text in the slot with the caller's characters; no node, no
 * stored string, no state object. A map-based store reads five lines for the same decision (the
 * table's slot, the node, the stored key, its bytes, the state).
 *
 * <p>What it leaves out, and a limiter could not: keys are inserted once, by one thread, before
 * the measurement (no concurrent insert, no removal, no idle expiry, no bound, no resize); longer
 * or non-ASCII keys are refused rather than stored elsewhere. It decides exactly as Sluice's
 * token bucket does at a rate whose units are nanoseconds (one unit per nanosecond and per token).
 */
final class InlineKeyTable {

  /** Longs per slot: one 64-byte cache line. */
  private static final int SLOT = 8;
  /** Longs of packed key text per slot. */
  private static final int KEY_LONGS = SLOT - 2;

  static final int MAX_KEY_CHARS = KEY_LONGS * 8;
  /**
   * Index of the first slot: byte 64 of the array's memory. An array this large is allocated at the
   * start of a heap region with a 16-byte header, so every slot then starts on a cache line.
   */
  private static final int BASE = 6;

  private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);

  private final long[] table;
  private final int mask;
  private final long limit;
  private final long capacityUnits;

  /**
   * @param slots a power of two, at least twice the keys it will hold
   * @param limit permits per second (one unit per nanosecond: the rate must be 10^9 a second)
   * @param capacity the bucket's capacity in permits
   */
  InlineKeyTable(int slots, long limit, long capacity) {
    if (Integer.bitCount(slots) != 1) {
      throw new IllegalArgumentException("slots must be a power of two but was " + slots);
    }
    if (limit != 1_000_000_000L) {
      throw new IllegalArgumentException("only 10^9 permits a second are modelled, not " + limit);
    }
    this.table = new long[BASE + slots * SLOT];
    this.mask = slots - 1;
    this.limit = limit;
    this.capacityUnits = capacity;
  }

  /** Stores {@code key} with a full bucket at {@code now}; one thread, before any decision. */
  void insert(String key, long now) {
    if (key.isEmpty() || key.length() > MAX_KEY_CHARS) {
      throw new IllegalArgumentException("key of " + key.length() + " chars not modelled");
    }
    long meta = meta(key);
    int slot = spread(key.hashCode()) & mask;
    while (true) {
      int at = BASE + slot * SLOT;
      if (table[at] == 0) {
        for (int word = 0; word * 8 < key.length(); word++) {
          long packed = packed(key, word);
          if (packed < 0) {
            throw new IllegalArgumentException("key with a character past ASCII not modelled");
          }
          table[at + 2 + word] = packed;
        }
        table[at + 1] = now;
        table[at] = meta;
        return;
      }
      if (table[at] == meta && sameKey(at, key)) {
        return;
      }
      slot = (slot + 1) & mask;
    }
  }

  /** The slot's index for {@code key}, or -1. */
  int find(String key) {
    int length = key.length();
    if (length == 0 || length > MAX_KEY_CHARS) {
      return -1;
    }
    int hash = key.hashCode();
    long meta = ((long) hash << 32) | length;
    int slot = spread(hash) & mask;
    while (true) {
      int at = BASE + slot * SLOT;
      long found = table[at];
      if (found == 0) {
        return -1;
      }
      if (found == meta && sameKey(at, key)) {
        return at;
      }
      slot = (slot + 1) & mask;
    }
  }

  /**
   * Takes {@code cost} permits for {@code key} if it has them, writing limit, remaining and reset
   * (nanoseconds) into {@code into} on success; false for an unknown key.
   */
  boolean tryAcquire(String key, long cost, long[] into) {
    int at = find(key);
    if (at < 0) {
      return false;
    }
    long now = System.nanoTime();
    long taken = cost;
    while (true) {
      long fullAt = (long) LONGS.getVolatile(table, at + 1);
      long deficit = Math.max(0, fullAt - now);
      long after = deficit + taken;
      if (after > capacityUnits) {
        into[0] = limit;
        into[1] = after - capacityUnits;
        into[2] = deficit;
        return false;
      }
      if (LONGS.compareAndSet(table, at + 1, fullAt, now + after)) {
        into[0] = limit;
        into[1] = capacityUnits - after;
        into[2] = after;
        return true;
      }
    }
  }

  private boolean sameKey(int at, String key) {
    for (int word = 0; word * 8 < key.length(); word++) {
      if (table[at + 2 + word] != packed(key, word)) {
        return false;
      }
    }
    return true;
  }

  /**
   * Characters {@code 8 * word} onwards, one byte each (never negative); -1 when one is past ASCII,
   * which no stored word equals.
   */
  private static long packed(String key, int word) {
    long packed = 0;
    int from = word * 8;
    int to = Math.min(key.length(), from + 8);
    for (int i = from; i < to; i++) {
      char c = key.charAt(i);
      if (c > 0x7F) {
        return -1;
      }
      packed |= (long) c << ((i - from) * 8);
    }
    return packed;
  }

  private static long meta(String key) {
    return ((long) key.hashCode() << 32) | key.length();
  }

  private static int spread(int hash) {
    int h = hash * 0x9E3779B9;
    return h ^ (h >>> 16);
  }
}
