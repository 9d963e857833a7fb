package dev.sluice.client;

import dev.sluice.time.NanoClock;
import java.util.random.RandomGenerator;

/**
 * Google SRE's adaptive client-side throttling ("Handling Overload", SRE book ch. 21): over a
 * trailing window, a request is rejected locally with probability
 * {@code max(0, (requests - K x accepts) / (requests + 1))}. While the backend accepts everything
 * nothing is rejected; once it throttles, the client sheds the excess itself instead of spending a
 * round trip on a request that will be refused. {@code K = 2} is the book's value.
 *
 * <p>Counts live in ten buckets of a tenth of the window each. Guarded by its own monitor: a few
 * integer updates per request, far below the cost of the request itself.
 */
final class ClientSideThrottle {

  private static final int BUCKETS = 10;

  private final double k;
  private final long bucketNanos;
  private final NanoClock clock;
  private final RandomGenerator random;
  private final long[] requests = new long[BUCKETS];
  private final long[] accepts = new long[BUCKETS];
  private long currentBucket;

  ClientSideThrottle(double k, long windowNanos, NanoClock clock, RandomGenerator random) {
    this.k = k;
    this.bucketNanos = Math.max(1, windowNanos / BUCKETS);
    this.clock = clock;
    this.random = random;
    this.currentBucket = clock.nanoTime() / bucketNanos;
  }

  /** Counts a request and decides it: true when it must be rejected locally. */
  synchronized boolean rejectLocally() {
    int slot = roll();
    long r = 0;
    long a = 0;
    for (int i = 0; i < BUCKETS; i++) {
      r += requests[i];
      a += accepts[i];
    }
    requests[slot]++;
    double p = Math.max(0, (r - k * a) / (r + 1));
    return p > 0 && random.nextDouble() < p;
  }

  /** The backend accepted a request (anything but a throttling answer). */
  synchronized void accepted() {
    accepts[roll()]++;
  }

  /** The probability a request would be rejected now. */
  synchronized double rejectProbability() {
    roll();
    long r = 0;
    long a = 0;
    for (int i = 0; i < BUCKETS; i++) {
      r += requests[i];
      a += accepts[i];
    }
    return Math.max(0, (r - k * a) / (r + 1));
  }

  /** Clears the buckets time has left behind; returns the current one. */
  private int roll() {
    long bucket = clock.nanoTime() / bucketNanos;
    long passed = bucket - currentBucket;
    if (passed != 0) {
      // the clock may start anywhere (and wrap): a jump of a window or more clears everything
      long clear = passed < 0 || passed >= BUCKETS ? BUCKETS : passed;
      for (long i = 1; i <= clear; i++) {
        int s = Math.floorMod(currentBucket + i, BUCKETS);
        requests[s] = 0;
        accepts[s] = 0;
      }
      currentBucket = bucket;
    }
    return Math.floorMod(bucket, BUCKETS);
  }
}
