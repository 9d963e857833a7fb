package dev.sluice.redis;

import dev.sluice.store.StoreSettings;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one multiplexed Lettuce connection of a node (to a standalone Redis, or to a Redis Cluster
 * when the URI says {@code ?cluster=true}), opened lazily and re-opened by itself; also the
 * connection under each {@link RedisConnection} another module opens.
 *
 * <p>Lettuce reconnects a connection it once had, but not one it never got: when Redis is down at
 * start-up, every {@link #commands()} call that finds no connection starts (at most one) new
 * attempt in the background and answers {@code null} at once, so no caller waits for a connect.
 */
final class Link implements AutoCloseable {

  /** Lettuce backs off up to 30 s by default; a restarted Redis should be used again within ~1 s. */
  private static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  /** How often a Redis Cluster node re-reads the slot map (see the cluster options below). */
  static final Duration TOPOLOGY_REFRESH = Duration.ofSeconds(2);

  private final RedisURI uri;
  private final boolean cluster;
  private final ClientResources resources;
  private final boolean ownsResources;
  private final AbstractRedisClient client;
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile StatefulConnection<String, String> connection;
  private volatile RedisClusterAsyncCommands<String, String> commands;
  private volatile boolean closed;
  private volatile Throwable lastConnectError;
  private final Duration pingTimeout;

  Link(StoreSettings settings, UriOptions options, CallBound bound) {
    this(settings, options, bound, null);
  }

  /**
   * A link on {@code shared} resources (event loops, timers), which it leaves running when closed;
   * {@code null}: resources of its own.
   */
  Link(StoreSettings settings, UriOptions options, CallBound bound, ClientResources shared) {
    this.cluster = options.cluster();
    this.uri = RedisURI.create(options.lettuceUri());
    // Lettuce bounds the connection handshake (HELLO, AUTH, SELECT) by the URI's timeout: with the
    // 50 ms decision timeout there, a first connect on a busy machine failed and the node ran on
    // its local share for seconds. Commands are bounded by TimeoutOptions below instead.
    // never tighter than one command: a connect is at least a round trip or two
    Duration connectTimeout = settings.connectTimeout().compareTo(settings.timeout()) >= 0
        ? settings.connectTimeout()
        : settings.timeout();
    this.uri.setTimeout(connectTimeout);
    this.ownsResources = shared == null;
    this.resources = shared == null ? newResources() : shared;
    SocketOptions socket =
        SocketOptions.builder().connectTimeout(connectTimeout).keepAlive(true).build();
    // a PING asked whether a connection whose calls time out is slow or dead (see StallCheck):
    // it waits as long as a connect may, the decisions only as long as the decision timeout
    this.pingTimeout = connectTimeout;
    long pingNanos = connectTimeout.toNanos();
    TimeoutOptions timeouts = TimeoutOptions.builder()
        .timeoutSource(new TimeoutOptions.TimeoutSource() {
          @Override
          public long getTimeout(io.lettuce.core.protocol.RedisCommand<?, ?, ?> command) {
            return command.getType() == io.lettuce.core.protocol.CommandType.PING
                ? pingNanos
                : bound.nanos(); // the decision timeout, or the start-up allowance
          }

          @Override
          public TimeUnit getTimeUnit() {
            return TimeUnit.NANOSECONDS;
          }
        })
        .build();
    if (cluster) {
      RedisClusterClient clusterClient = RedisClusterClient.create(resources, uri);
      clusterClient.setOptions(ClusterClientOptions.builder()
          .autoReconnect(true)
          // Lettuce opens each master's connection lazily, and a command for a master whose
          // connection is still opening counts as "disconnected": rejecting it would fail every
          // first call per master. Here commands wait in Lettuce's buffer instead, and the
          // command timeout (below) cancels them, so none runs after its caller got an answer.
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
          // without a refresh the slot map is the one read at start-up: after a failover the
          // slots of a dead or frozen master keep going to it until it comes back. Adaptive
          // triggers (MOVED, ASK, persistent reconnects, a failed node) react at once; the
          // periodic refresh finds a promotion that sent none of them (a frozen master)
          .topologyRefreshOptions(topologyRefresh())
          .timeoutOptions(timeouts)
          .socketOptions(socket)
          .build());
      this.client = clusterClient;
    } else {
      RedisClient redisClient = RedisClient.create(resources);
      redisClient.setOptions(ClientOptions.builder()
          .autoReconnect(true)
          // while disconnected, fail at once instead of buffering commands for later: a
          // decision that waited for a reconnect would be a decision made too late
          .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
          .timeoutOptions(timeouts)
          .socketOptions(socket)
          .build());
      this.client = redisClient;
    }
  }

  /** Event loops and timers for links: two threads each, and a restarted Redis found within ~1 s. */
  static ClientResources newResources() {
    return ClientResources.builder()
        .ioThreadPoolSize(2)
        .computationThreadPoolSize(2)
        .reconnectDelay(RECONNECT_DELAY)
        .build();
  }

  /** Whether this is a Redis Cluster connection. */
  boolean isCluster() {
    return cluster;
  }

  /** Where this link points, without credentials. */
  String where() {
    if (!uri.getSentinels().isEmpty()) {
      return "redis-sentinel://"
          + uri.getSentinels().stream()
              .map(s -> s.getHost() + ':' + s.getPort())
              .collect(java.util.stream.Collectors.joining(","))
          + '#' + uri.getSentinelMasterId();
    }
    return (uri.isSsl() ? "rediss://" : "redis://")
        + uri.getHost()
        + ':'
        + uri.getPort()
        + (cluster ? " (cluster)" : "");
  }

  // every adaptive trigger on; the replacement takes them one by one and would miss any Lettuce
  // adds
  @SuppressWarnings("deprecation")
  private static io.lettuce.core.cluster.ClusterTopologyRefreshOptions topologyRefresh() {
    return io.lettuce.core.cluster.ClusterTopologyRefreshOptions.builder()
        .enablePeriodicRefresh(TOPOLOGY_REFRESH)
        .enableAllAdaptiveRefreshTriggers()
        .build();
  }

  /** Starts connecting unless connected or already trying; completes when the attempt ends. */
  // closing a replaced or late connection: a failed close leaves nothing to undo; connect() records
  // its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  CompletableFuture<Void> connect() {
    if (connection != null || closed || !connecting.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(null);
    }
    CompletableFuture<? extends StatefulConnection<String, String>> attempt;
    if (cluster) {
      // the asynchronous cluster connect needs the slot map first (the blocking one loads it)
      RedisClusterClient clusterClient = (RedisClusterClient) client;
      attempt = clusterClient
          .refreshPartitionsAsync()
          .toCompletableFuture()
          .thenCompose(loaded -> clusterClient.connectAsync(StringCodec.UTF8));
    } else {
      attempt = ((RedisClient) client).connectAsync(StringCodec.UTF8, uri).toCompletableFuture();
    }
    return attempt.handle((opened, error) -> {
      lastConnectError = error;
      if (opened != null) {
        if (closed) {
          opened.closeAsync();
        } else {
          commands = opened instanceof StatefulRedisClusterConnection<String, String> c
              ? c.async()
              : ((StatefulRedisConnection<String, String>) opened).async();
          connection = opened;
        }
      }
      connecting.set(false);
      return null;
    });
  }

  /**
   * Opens a separate connection for pub/sub (a subscribed connection can run no other command).
   * Lettuce reconnects it and subscribes it again by itself once it was open.
   */
  CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connectPubSub() {
    if (closed) {
      return CompletableFuture.failedFuture(new IllegalStateException("closed"));
    }
    if (cluster) {
      return ((RedisClusterClient) client).connectPubSubAsync(StringCodec.UTF8);
    }
    return ((RedisClient) client).connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
  }

  /** Whether a connection is open (it may be reconnecting underneath). */
  boolean isConnected() {
    return commands != null;
  }

  /** Why the last connect attempt failed, or {@code null}. */
  Throwable lastConnectError() {
    return lastConnectError;
  }

  /** The commands of the connection, or {@code null} (and a connect started) when there is none. */
  // closing a replaced or late connection: a failed close leaves nothing to undo; connect() records
  // its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  RedisClusterAsyncCommands<String, String> commands() {
    RedisClusterAsyncCommands<String, String> current = commands;
    if (current == null) {
      connect();
    }
    return current;
  }

  /** How long a PING may take before the connection counts as dead (the connect timeout). */
  Duration pingTimeout() {
    return pingTimeout;
  }

  /** The open connection, or {@code null}. */
  StatefulConnection<String, String> current() {
    return connection;
  }

  /** Sends a PING on {@code on}, bounded by {@link #pingTimeout()}. */
  CompletableFuture<String> ping(StatefulConnection<String, String> on) {
    try {
      return (on instanceof StatefulRedisClusterConnection<String, String> c
              ? c.async().ping()
              : ((StatefulRedisConnection<String, String>) on).async().ping())
          .toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Closes {@code stuck} if it is still the connection, and opens a new one: with Sentinel the new
   * one asks the sentinels where the master is now. Lettuce only reconnects a connection that
   * closed; one whose peer froze or vanished behind a blackhole stays open, its commands timing
   * out, for as long as TCP keeps retransmitting (many minutes).
   */
  // closing a replaced or late connection: a failed close leaves nothing to undo; connect() records
  // its own failure
  @SuppressWarnings("FutureReturnValueIgnored")
  void replace(StatefulConnection<String, String> stuck) {
    synchronized (this) {
      if (connection != stuck || closed) {
        return;
      }
      connection = null;
      commands = null;
    }
    stuck.closeAsync();
    connect();
  }

  @Override
  // shutting down: a slow or failed shutdown of the client resources has no one left to tell
  @SuppressWarnings("FutureReturnValueIgnored")
  public void close() {
    closed = true;
    StatefulConnection<String, String> current = connection;
    if (current != null) {
      current.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    if (ownsResources) {
      resources.shutdown(0, 2, TimeUnit.SECONDS);
    }
  }
}
