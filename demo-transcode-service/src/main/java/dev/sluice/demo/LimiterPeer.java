package dev.sluice.demo;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * A measurement aid, not a feature: another project's adaptive limiter in front of
 * {@code POST /api/transcode} instead of Sluice's {@code transcode} limiter
 * ({@code demo.limiter-peer}), so the load test's adaptive comparison measures it on the same jobs.
 * With a peer set, the demo hands the plugin no {@code sluice.limiters.transcode.*} key; the rescue
 * limiter and the rate rules stay Sluice's.
 *
 * <p>Netflix concurrency-limits' {@code SimpleLimiter}: no queue, a request over the limit is
 * answered 429 at once. Its {@code BlockingLimiter} would queue, but by parking the request thread,
 * which is the very cost Sluice's non-blocking queue avoids; not used. The limit algorithms run with
 * their defaults except the floor and the start: Gradient2's default {@code minLimit} is 20 and both
 * start at 20, which on a 2-core machine of 200 ms CPU jobs would never limit anything, so both start
 * at the number of cores and Gradient2 may go down to 1.
 */
enum LimiterPeer {
  /** Sluice's own limiter (the default). */
  NONE,
  /** Netflix concurrency-limits {@code Gradient2Limit}: grows while latency stays near its long-term average. */
  NETFLIX_GRADIENT2,
  /** Netflix concurrency-limits {@code VegasLimit}: estimates the queue from the no-load RTT. */
  NETFLIX_VEGAS,
  /**
   * Netflix concurrency-limits' partitioned limiter, a partition per host header value: see {@link
   * NetflixPartitionedPeer} (fixed limit; not a {@link PeerGate}).
   */
  NETFLIX_PARTITIONED;

  static final String KEY = "demo.limiter-peer";
  /** The endpoint the peer guards in place of Sluice's {@code transcode} limiter. */
  static final String PATH = "/api/transcode";
  /** The Sluice limiter the peer replaces: its keys are not handed to the plugin. */
  static final String REPLACED_PREFIX = "sluice.limiters.transcode.";

  /**
   * @throws IllegalArgumentException naming the key, the value and the choices
   */
  static LimiterPeer of(String value) {
    for (LimiterPeer peer : values()) {
      if (peer.id().equalsIgnoreCase(value.trim())) {
        return peer;
      }
    }
    throw new IllegalArgumentException(KEY + "=" + value + " is not one of "
        + Arrays.stream(values()).map(LimiterPeer::id).collect(Collectors.joining("|")));
  }

  /** As written in the property, e.g. {@code netflix-gradient2}. */
  String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** The peer's limit algorithm, or null for {@link #NONE} and {@link #NETFLIX_PARTITIONED}. */
  Limit limit(int cores) {
    int start = Math.max(1, cores);
    return switch (this) {
      case NONE, NETFLIX_PARTITIONED -> null;
      case NETFLIX_GRADIENT2 ->
        Gradient2Limit.newBuilder().initialLimit(start).minLimit(1).build();
      case NETFLIX_VEGAS -> VegasLimit.newBuilder().initialLimit(start).build();
    };
  }
}
