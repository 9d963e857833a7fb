package dev.sluice.client;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * One Lettuce connection of the leases or the buffer, closed without Lettuce's 2 s quiet period.
 * Every connection of the JVM shares one set of Lettuce resources (event loops, timers), as Lettuce
 * advises: each set starts threads, and a process with leases, a buffer and processors would
 * otherwise start several.
 */
final class RedisConnection implements AutoCloseable {

  private static final class Shared {
    static final ClientResources RESOURCES = DefaultClientResources.create();
  }

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;

  RedisConnection(URI uri) {
    if (uri == null) {
      throw new IllegalArgumentException("redis uri must not be null");
    }
    RedisURI redisUri;
    try {
      redisUri = RedisURI.create(uri);
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "redis uri must be like redis://host:port but was '" + uri + "'", e);
    }
    this.client = RedisClient.create(Shared.RESOURCES, redisUri);
    try {
      this.connection = client.connect();
    } catch (RuntimeException e) {
      client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
      throw new IllegalStateException(
          "cannot connect to redis at " + uri + ": " + e.getMessage(), e);
    }
  }

  RedisAsyncCommands<String, String> async() {
    return connection.async();
  }

  /** The text of a script shipped beside this class. */
  static String script(String name) {
    try (InputStream in = RedisConnection.class.getResourceAsStream(name + ".lua")) {
      if (in == null) {
        throw new IllegalStateException("script " + name + ".lua is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
