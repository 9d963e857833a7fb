package dev.sluice.ratelimit;

import dev.sluice.redis.RedisConnection;
import dev.sluice.redis.RedisScript;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * The demands of every replica's streams, in one Redis hash per bucket (field: the stream, value:
 * its demand and its expiry on Redis's clock), written and read by one script so that a report and
 * the division it gets see the same demands.
 *
 * <p>Reached through limiter-redis's {@link RedisConnection}, the library's one way for a module
 * to keep state of its own in Redis (EVALSHA with NOSCRIPT reload, TRYAGAIN, the call bound,
 * reconnection): the store interface of the core ({@code Stores}) counts rates and leases and has
 * no place for a map of demands.
 *
 * <p>While Redis cannot be reached, a report is answered from the demands the last answer for the
 * bucket carried, with this stream's own updated: the division stays where it was, and moves with
 * this replica's own streams only.
 */
final class RedisDemands implements Demands {

  private static final System.Logger LOG = System.getLogger(RedisDemands.class.getName());

  private static final RedisScript REPORT = RedisScript.load(RedisDemands.class, "rlqs_demand");
  private static final RedisScript WITHDRAW =
      RedisScript.of("rlqs_withdraw", "return redis.call('HDEL', KEYS[1], ARGV[1])");

  private final URI uri;
  private final Duration timeout;
  private final ScheduledExecutorService reconnect;
  private volatile RedisConnection redis;
  private final Map<String, SortedMap<String, Double>> lastKnown = new ConcurrentHashMap<>();

  private RedisDemands(URI uri, Duration timeout) {
    this.uri = uri;
    this.timeout = timeout;
    this.reconnect = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread t = new Thread(r, "rlqs-redis-connect");
      t.setDaemon(true);
      return t;
    });
  }

  /**
   * Connects to {@code uri}; when Redis cannot be reached yet, starts without it (answering from
   * this replica's demands) and tries again every second.
   */
  static RedisDemands open(URI uri, Duration timeout) {
    RedisDemands demands = new RedisDemands(uri, timeout);
    if (!demands.connect()) {
      // ends itself on success; close() stops it otherwise
      java.util.concurrent.Future<?> unused = demands.reconnect.scheduleWithFixedDelay(
          () -> {
            if (demands.connect()) {
              demands.reconnect.shutdown();
            }
          },
          1,
          1,
          TimeUnit.SECONDS);
    }
    return demands;
  }

  private boolean connect() {
    try {
      redis = RedisConnection.open(uri, timeout);
      return true;
    } catch (IllegalStateException e) {
      LOG.log(System.Logger.Level.WARNING, "RLQS demands: " + e.getMessage() + "; retrying");
      return false;
    }
  }

  static String key(String bucket) {
    return "sluice:rlqs:{" + StoreCounters.bounded(bucket) + "}";
  }

  @Override
  public CompletionStage<SortedMap<String, Double>> report(
      String bucket, String stream, double perSecond, Duration ttl) {
    RedisConnection connection = redis;
    if (connection == null) {
      return CompletableFuture.completedFuture(fallback(bucket, stream, perSecond));
    }
    return connection
        .run(
            REPORT,
            new String[] {key(bucket)},
            stream,
            Double.toString(perSecond),
            Long.toString(Math.max(1, ttl.toMillis())))
        .handle((reply, failure) -> {
          if (failure != null) {
            return fallback(bucket, stream, perSecond);
          }
          SortedMap<String, Double> live = parse(reply);
          lastKnown.put(bucket, live);
          return live;
        });
  }

  private SortedMap<String, Double> fallback(String bucket, String stream, double perSecond) {
    SortedMap<String, Double> live = new TreeMap<>(lastKnown.getOrDefault(bucket, new TreeMap<>()));
    live.put(stream, perSecond);
    lastKnown.put(bucket, live);
    return live;
  }

  private static SortedMap<String, Double> parse(List<Object> reply) {
    SortedMap<String, Double> live = new TreeMap<>();
    for (int i = 0; i + 1 < reply.size(); i += 2) {
      live.put(String.valueOf(reply.get(i)), Double.parseDouble(String.valueOf(reply.get(i + 1))));
    }
    return live;
  }

  @Override
  public void withdraw(String bucket, String stream) {
    lastKnown.computeIfPresent(bucket, (b, live) -> {
      SortedMap<String, Double> rest = new TreeMap<>(live);
      rest.remove(stream);
      return rest.isEmpty() ? null : rest;
    });
    RedisConnection connection = redis;
    if (connection != null) {
      // a withdrawal Redis misses is not lost for long: the demand expires with its TTL
      CompletableFuture<List<Object>> unused =
          connection.run(WITHDRAW, new String[] {key(bucket)}, stream);
    }
  }

  @Override
  public String describe() {
    RedisConnection connection = redis;
    return connection == null ? "redis (connecting)" : "redis " + connection;
  }

  @Override
  public void close() {
    reconnect.shutdownNow();
    RedisConnection connection = redis;
    if (connection != null) {
      connection.close();
    }
  }
}
