package dev.sluice.peers;

import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import dev.sluice.demo.Peer;
import io.javalin.config.JavalinConfig;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.UnaryOperator;

/**
 * {@code demo.limiter-peer}: Netflix concurrency-limits in front of {@code POST /api/transcode}
 * instead of Sluice's {@code transcode} limiter, so the load test's adaptive comparison, overload
 * sweep and {@code greedy-host} scenario measure it on the same jobs.
 *
 * <p>{@code netflix-gradient2} and {@code netflix-vegas}: its {@code SimpleLimiter} with that
 * {@code Limit} ({@link PeerGate}). No queue, a request over the limit is answered 429 at once. Its
 * {@code BlockingLimiter} would queue, but by parking the request thread, which is the very cost
 * Sluice's non-blocking queue avoids; not used. The limit algorithms run with their defaults except
 * the floor and the start: Gradient2's default {@code minLimit} is 20 and both start at 20, which on
 * a 2-core machine of 200 ms CPU jobs would never limit anything, so both start at the number of
 * cores and Gradient2 may go down to 1. {@code netflix-partitioned}: {@link NetflixPartitionedPeer}.
 */
public final class NetflixPeers implements Peer {

  static final String KEY = "demo.limiter-peer";
  static final String GRADIENT2 = "netflix-gradient2";
  static final String VEGAS = "netflix-vegas";

  @Override
  public String key() {
    return KEY;
  }

  @Override
  public List<String> ids() {
    return List.of(GRADIENT2, VEGAS, NetflixPartitionedPeer.NAME);
  }

  @Override
  public UnaryOperator<String> install(
      String id, JavalinConfig config, Function<String, Optional<String>> settings, int cores) {
    int start = Math.max(1, cores);
    switch (id) {
      case GRADIENT2 -> {
        PeerGate gate = new PeerGate(
            id, Gradient2Limit.newBuilder().initialLimit(start).minLimit(1).build());
        gate.install(config);
        return gate::addTo;
      }
      case VEGAS -> {
        PeerGate gate =
            new PeerGate(id, VegasLimit.newBuilder().initialLimit(start).build());
        gate.install(config);
        return gate::addTo;
      }
      case NetflixPartitionedPeer.NAME -> {
        NetflixPartitionedPeer.of(settings).install(config);
        return status -> status;
      }
      default -> throw new IllegalArgumentException(KEY + "=" + id + " is not one of " + ids());
    }
  }
}
