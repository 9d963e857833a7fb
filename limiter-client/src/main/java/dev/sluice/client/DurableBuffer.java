package dev.sluice.client;

import dev.sluice.redis.RedisConnection;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.XGroupCreateArgs;
import io.lettuce.core.XReadArgs;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Records waiting for a throttled service, kept in a Redis Stream so they survive a crash of the
 * process that took them. {@link #append} adds a record; {@link BufferProcessor}s drain the stream
 * through a consumer group at their leased pace and acknowledge a record only once the service
 * accepted it.
 *
 * <p>Delivery is <em>at least once</em>: a processor that crashes after the service accepted a
 * record but before its acknowledgement reached Redis leaves the record pending, another processor
 * claims it and sends it again. The service sees it twice; processors count such redeliveries, and
 * a service that must not apply a record twice keys it by the id the processor sends along.
 */
public final class DurableBuffer implements AutoCloseable {

  static final String FIELD = "r";
  static final String GROUP = "processors";

  /** The bound on every Redis call of the buffer and its processors. */
  static final Duration CALL_TIMEOUT = Duration.ofSeconds(5);

  private final String key;
  private final RedisConnection redis;

  private DurableBuffer(URI uri, String name) {
    if (name == null
        || name.isBlank()
        || name.chars().anyMatch(c -> c == '{' || c == '}' || c < 0x21 || c > 0x7e)) {
      throw new IllegalArgumentException(
          "buffer name must be printable characters without braces or " + "spaces but was '" + name
              + "'");
    }
    this.key = streamKey(name);
    this.redis = RedisConnection.open(uri, CALL_TIMEOUT);
    createGroup(redis, key);
  }

  /** Opens (creating if needed) the buffer {@code name} in the Redis at {@code uri}. */
  public static DurableBuffer open(URI uri, String name) {
    return new DurableBuffer(uri, name);
  }

  /** Adds a record; the future gives its stream id once Redis has it. */
  public CompletableFuture<String> append(String record) {
    if (record == null) {
      throw new IllegalArgumentException("record must not be null");
    }
    return redis.call(c -> c.xadd(key, Map.of(FIELD, record)));
  }

  /** Records appended and not yet acknowledged or never read (the stream's length). */
  public long length() {
    return redis.call(c -> c.xlen(key)).join();
  }

  /** Records read by a processor and not acknowledged yet. */
  public long pending() {
    return redis.call(c -> c.xpending(key, GROUP)).join().getCount();
  }

  static String streamKey(String name) {
    return "sluice:buffer:{" + name + "}";
  }

  /** Creates the stream and its group once; a group that exists already is fine. */
  static void createGroup(RedisConnection redis, String key) {
    try {
      redis
          .call(c -> c.xgroupCreate(
              XReadArgs.StreamOffset.from(key, "0"), GROUP, XGroupCreateArgs.Builder.mkstream()))
          .join();
    } catch (CompletionException e) {
      if (!(e.getCause() instanceof RedisBusyException)
          && (e.getCause() == null
              || !String.valueOf(e.getCause().getMessage()).startsWith("BUSYGROUP"))) {
        throw e;
      }
    }
  }

  @Override
  public void close() {
    redis.close();
  }
}
