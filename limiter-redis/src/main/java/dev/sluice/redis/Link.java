package dev.sluice.redis;

import dev.sluice.store.StoreSettings;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The one multiplexed Lettuce connection of a node, opened lazily and re-opened by itself.
 *
 * <p>Lettuce reconnects a connection it once had, but not one it never got: when Redis is down at
 * start-up, every {@link #commands()} call that finds no connection starts (at most one) new
 * attempt in the background and answers {@code null} at once, so no caller waits for a connect.
 */
final class Link implements AutoCloseable {

  /** Lettuce backs off up to 30 s by default; a restarted Redis should be used again within ~1 s. */
  private static final Delay RECONNECT_DELAY =
      Delay.exponential(Duration.ofMillis(10), Duration.ofSeconds(1), 2, TimeUnit.MILLISECONDS);

  private final RedisURI uri;
  private final ClientResources resources;
  private final RedisClient client;
  private final AtomicBoolean connecting = new AtomicBoolean();
  private volatile StatefulRedisConnection<String, String> connection;
  private volatile boolean closed;

  Link(StoreSettings settings) {
    this.uri = RedisURI.create(settings.uri());
    this.uri.setTimeout(settings.timeout());
    this.resources =
        ClientResources.builder()
            .ioThreadPoolSize(2)
            .computationThreadPoolSize(1)
            .reconnectDelay(RECONNECT_DELAY)
            .build();
    this.client = RedisClient.create(resources);
    client.setOptions(
        ClientOptions.builder()
            .autoReconnect(true)
            // while disconnected, fail at once instead of buffering commands for later: a
            // decision that waited for a reconnect would be a decision made too late
            .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
            .timeoutOptions(TimeoutOptions.enabled(settings.timeout()))
            .socketOptions(
                SocketOptions.builder()
                    .connectTimeout(max(settings.timeout(), Duration.ofSeconds(1)))
                    .keepAlive(true)
                    .build())
            .build());
  }

  /** Where this link points, without credentials. */
  String where() {
    return (uri.isSsl() ? "rediss://" : "redis://") + uri.getHost() + ':' + uri.getPort();
  }

  /** Starts connecting unless connected or already trying; completes when the attempt ends. */
  CompletableFuture<Void> connect() {
    if (connection != null || closed || !connecting.compareAndSet(false, true)) {
      return CompletableFuture.completedFuture(null);
    }
    return client.connectAsync(StringCodec.UTF8, uri)
        .toCompletableFuture()
        .handle((opened, error) -> {
          connecting.set(false);
          if (opened != null) {
            if (closed) {
              opened.closeAsync();
            } else {
              connection = opened;
            }
          }
          return null;
        });
  }

  /** The commands of the connection, or {@code null} (and a connect started) when there is none. */
  RedisAsyncCommands<String, String> commands() {
    StatefulRedisConnection<String, String> current = connection;
    if (current == null) {
      connect();
      return null;
    }
    return current.async();
  }

  @Override
  public void close() {
    closed = true;
    StatefulRedisConnection<String, String> current = connection;
    if (current != null) {
      current.close();
    }
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    resources.shutdown(0, 2, TimeUnit.SECONDS);
  }

  private static Duration max(Duration a, Duration b) {
    return a.compareTo(b) >= 0 ? a : b;
  }
}
