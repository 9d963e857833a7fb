package dev.sluice.redis;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Function;

/**
 * A connection to Redis for a module of Sluice that keeps state of its own there (the client's
 * partition leases and durable buffer, the load test watching its Redis). It is the one way a
 * module reaches Redis: it runs on the same connection handling and script runner as the global
 * store, so every module gets the same behaviour.
 *
 * <ul>
 *   <li>Scripts ({@link RedisScript}) are sent by their SHA-1 (EVALSHA). A server that does not know
 *       one (first call, a restart, {@code SCRIPT FLUSH}) answers NOSCRIPT, and the call is sent
 *       once more as EVAL, which also caches the body for the next EVALSHA.
 *   <li>A Redis Cluster moving the slot of a script's keys refuses it with TRYAGAIN; nothing ran, so
 *       it is sent again after 1, 2, 4 … 32 ms.
 *   <li>Every command is bounded by the {@code timeout} given to {@link #open}: its future fails
 *       with Lettuce's {@code RedisCommandTimeoutException} when Redis does not answer in time.
 *   <li>A lost connection is opened again in the background (backing off up to 1 s, so a restarted
 *       Redis is used again within about a second). Until then a call fails at once instead of
 *       waiting for the reconnect (with Redis Cluster it waits, bounded by the timeout, since a
 *       master's connection opens lazily).
 * </ul>
 *
 * <p>URIs as for {@code sluice.redis.uri}: {@code redis://}, {@code rediss://}, {@code
 * redis-sentinel://host:port,host:port#master}, and {@code ?cluster=true} for Redis Cluster. The
 * connections opened here share one set of Lettuce resources (event loops, timers) per JVM, as
 * Lettuce advises: each set starts threads. Futures complete on Lettuce's I/O threads: do not block
 * in a callback.
 */
public final class RedisConnection implements AutoCloseable {

  /** Created on first use: a JVM that opens no connection here starts no threads for it. */
  private static final class Shared {
    static final ClientResources RESOURCES = Link.newResources();
  }

  private final Link link;
  private final String where;

  /**
   * The open connection's commands. Lettuce reconnects that same connection when it drops (and
   * rejects commands while it is down), and nothing here replaces it, so it never changes.
   */
  private final RedisClusterAsyncCommands<String, String> commands;

  private RedisConnection(Link link) {
    this.link = link;
    this.where = link.where();
    this.commands = link.commands();
  }

  /**
   * Connects to the Redis at {@code uri}, waiting for the connection at most the connect timeout
   * (1 s, or {@code timeout} when longer).
   *
   * @param timeout the bound on every command sent through this connection
   * @throws IllegalArgumentException when the URI or the timeout is not usable
   * @throws IllegalStateException when Redis cannot be reached within the connect timeout
   */
  public static RedisConnection open(URI uri, Duration timeout) {
    if (uri == null) {
      throw new IllegalArgumentException("redis uri must not be null");
    }
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("redis timeout must be > 0 but was " + timeout);
    }
    // the store's settings carry the two bounds the link reads; a module's own connection has no
    // failure policy of its own (the caller decides what a failed call means)
    StoreSettings settings =
        new StoreSettings(uri, timeout, 1, FailurePolicy.DENY, NanoClock.system());
    CallBound bound = new CallBound(settings);
    bound.started(); // no start-up allowance: that is for a node's first decisions under load
    Link link;
    try {
      link = new Link(settings, UriOptions.parse(uri), bound, Shared.RESOURCES);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "redis uri must be like redis://host:port but was '" + uri + "'", e);
    }
    Duration connect =
        settings.connectTimeout().compareTo(timeout) >= 0 ? settings.connectTimeout() : timeout;
    try {
      // the attempt is bounded by the connect timeout itself; the wait here only backs it up
      link.connect().get(connect.toMillis() + 1_000, TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (ExecutionException | TimeoutException e) {
      // judged below, by whether a connection is open
    }
    if (!link.isConnected()) {
      Throwable why = link.lastConnectError();
      link.close();
      throw new IllegalStateException(
          "cannot connect to redis at " + link.where() + ": "
              + (why == null ? "no answer within " + connect : why.getMessage()),
          why);
    }
    return new RedisConnection(link);
  }

  /** Runs {@code script} on {@code keys} and {@code args}; the future gives the list it answers. */
  public CompletableFuture<List<Object>> run(RedisScript script, String[] keys, String... args) {
    try {
      return script.lua().run(commands, keys, args);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Runs {@code script}, which answers one integer. */
  public CompletableFuture<Long> runForLong(RedisScript script, String[] keys, String... args) {
    try {
      return script.lua().runForLong(commands, keys, args);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /**
   * Sends a command other than a script, e.g. {@code redis.call(c -> c.xadd(key, body))}; it is
   * bounded by the timeout like every command. A command that throws fails the future.
   */
  public <T> CompletableFuture<T> call(
      Function<RedisClusterAsyncCommands<String, String>, ? extends CompletionStage<T>> command) {
    try {
      return command.apply(commands).toCompletableFuture();
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(e);
    }
  }

  /** Where this connection points, without credentials. */
  @Override
  public String toString() {
    return where;
  }

  /** Closes the connection; calls still running fail. */
  @Override
  public void close() {
    link.close();
  }
}
