package dev.sluice.peers;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.AbstractPartitionedLimiter;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.TooManyRequestsResponse;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * A measurement aid, not a feature: Netflix concurrency-limits' partitioned limiter in front of
 * {@code /api/transcode} ({@code demo.limiter-peer=netflix-partitioned}), so the load test's
 * {@code greedy-host} scenario can set Sluice's fair queue beside the peer users reach for today
 * (concurrency-limits#121 asks it for per-tenant fairness).
 *
 * <p>Set up as its users do: a fixed limit (by default the transcode limiter's
 * {@code max-concurrency}), one partition per name listed in {@code demo.limiter-peer.partitions},
 * each an equal share of the limit, resolved from the request header
 * {@code demo.limiter-peer.partition-header}; a request whose header names no partition goes to the
 * peer's "unknown" partition, which has no share of its own: it runs only while the total is under
 * the limit. What the peer does by design, and the load test shows: it has no
 * queue (a request over the limit is answered 429 at once), and each partition may always run
 * {@code max(1, ceil(limit x share))} requests, so 32 partitions over a limit of 1 admit up to 32 at
 * once. Sluice's own transcode limiter should be moved off the path when this runs
 * ({@code sluice.limiters.transcode.path=/api/transcode-unguarded}), or both would limit.
 */
final class NetflixPartitionedPeer {

  static final String KEY = "demo.limiter-peer";
  static final String NAME = "netflix-partitioned";
  static final String HEADER = KEY + ".partition-header";
  static final String PARTITIONS = KEY + ".partitions";
  static final String LIMIT = KEY + ".limit";
  static final String PATH = "/api/transcode";
  /** Sluice's transcode limiter's size, the peer's limit when none is given. */
  static final String TRANSCODE_CONCURRENCY = "sluice.limiters.transcode.max-concurrency";

  /** The request's Netflix listener, released by the after-handler. */
  private static final String LISTENER = "demo.netflixListener";

  private final Limiter<String> limiter;
  private final String header;
  private final int limit;
  private final List<String> partitions;

  private NetflixPartitionedPeer(String header, int limit, List<String> partitions) {
    this.header = header;
    this.limit = limit;
    this.partitions = partitions;
    HostPartitions builder = new HostPartitions()
        .named("transcode-netflix-partitioned")
        .limit(FixedLimit.of(limit))
        .partitionResolver(name -> name);
    // equal shares; nextDown keeps the sum at or under 1.0, which the builder checks
    double share = Math.nextDown(1.0 / partitions.size());
    partitions.forEach(p -> builder.partition(p, share));
    this.limiter = builder.build();
  }

  /**
   * The peer, from its settings.
   *
   * @param settings the demo's layered settings
   * @throws IllegalArgumentException naming the key and the value that is wrong
   */
  static NetflixPartitionedPeer of(Function<String, Optional<String>> settings) {
    String header = settings.apply(HEADER).orElse("X-Host-Id").trim();
    if (header.isEmpty()) {
      throw new IllegalArgumentException(HEADER + " must name a header but was empty");
    }
    List<String> partitions = Arrays.stream(
            settings.apply(PARTITIONS).orElse("").split("[,\\s]+"))
        .filter(s -> !s.isEmpty())
        .distinct()
        .toList();
    if (partitions.isEmpty()) {
      throw new IllegalArgumentException(
          PARTITIONS + " must list the partition names (header values), comma-separated, but was '"
              + settings.apply(PARTITIONS).orElse("") + "'");
    }
    String limit = settings
        .apply(LIMIT)
        .or(() -> settings.apply(TRANSCODE_CONCURRENCY))
        .orElse("1")
        .trim();
    try {
      int n = Integer.parseInt(limit);
      if (n >= 1) {
        return new NetflixPartitionedPeer(header, n, partitions);
      }
    } catch (NumberFormatException e) {
      // fall through to the message
    }
    throw new IllegalArgumentException(
        LIMIT + " must be a whole number >= 1 but was '" + limit + "'");
  }

  /** Installs the peer's handlers; call inside {@code Javalin.create}, before the routes. */
  void install(JavalinConfig config) {
    config.routes.before(PATH, this::acquire);
    // after-handlers run after an exception too, so a permit is never kept by a failed job
    config.routes.after(PATH, NetflixPartitionedPeer::release);
  }

  void acquire(Context ctx) {
    Optional<Limiter.Listener> listener = limiter.acquire(ctx.header(header));
    if (listener.isEmpty()) {
      throw new TooManyRequestsResponse("rejected by the Netflix partitioned limiter");
    }
    ctx.attribute(LISTENER, listener.get());
  }

  static void release(Context ctx) {
    Limiter.Listener listener = ctx.attribute(LISTENER);
    if (listener == null) {
      return;
    }
    // the Netflix listener is not idempotent (a second release adds a permit): drop it first
    ctx.attribute(LISTENER, null);
    if (ctx.status().getCode() / 100 == 2) {
      listener.onSuccess();
    } else {
      listener.onIgnore();
    }
  }

  @Override
  public String toString() {
    return NAME + " (limit " + limit + ", " + partitions.size() + " partitions by " + header + ")";
  }

  /** The library's builder needs a concrete subclass to be used outside its package. */
  private static final class HostPartitions
      extends AbstractPartitionedLimiter.Builder<HostPartitions, String> {
    @Override
    protected HostPartitions self() {
      return this;
    }
  }
}
