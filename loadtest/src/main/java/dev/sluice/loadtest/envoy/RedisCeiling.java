package dev.sluice.loadtest.envoy;

import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What {@code redis-server} itself answers to the script the service runs for each decision, called
 * directly: the ceiling the service's decisions per second are set against. The script is
 * limiter-redis's fixed window as its store sends it (the loss check and the charge-once prelude
 * in front of {@code fixed_window.lua}, read from limiter-redis's jar on this class path), with the
 * same keys and arguments as a descriptor of the scenario's file, by EVALSHA over one Lettuce
 * connection (as the service's store holds one), closed loop at a fixed number in flight.
 */
final class RedisCeiling implements AutoCloseable {

  /** The scripts the store puts together for a fixed window, in order (limiter-redis). */
  static final List<String> SCRIPT_PARTS = List.of("epoch_check", "charge_once", "fixed_window");

  private static final String EPOCH_KEY = "sluice:epoch";

  private final RedisClient client;
  private final StatefulRedisConnection<String, String> connection;
  private final RedisAsyncCommands<String, String> redis;
  private final String sha;
  private final String[] args;

  RedisCeiling(int port) {
    this.client = RedisClient.create(RedisURI.builder()
        .withHost("127.0.0.1")
        .withPort(port)
        .withTimeout(Duration.ofSeconds(10))
        .build());
    // a call while the connection is down fails at once rather than waiting in Lettuce's queue
    client.setOptions(ClientOptions.builder()
        .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
        .build());
    this.connection = client.connect();
    this.sha = connection.sync().scriptLoad(script());
    // the epoch the store learns before its first decision (the loss check refuses any other)
    List<Object> first =
        connection.sync().evalsha(sha, ScriptOutputType.MULTI, keys("probe"), args(""));
    String epoch = first.size() == 2 && Long.valueOf(-1).equals(first.get(0))
        ? String.valueOf(first.get(1))
        : connection.sync().get(EPOCH_KEY);
    this.args = args(epoch);
    this.redis = connection.async();
  }

  /** The body of the store's fixed-window script: each part and a line break, the last bare. */
  static String script() {
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < SCRIPT_PARTS.size(); i++) {
      String resource = "dev/sluice/redis/" + SCRIPT_PARTS.get(i) + ".lua";
      try (InputStream in = RedisCeiling.class.getClassLoader().getResourceAsStream(resource)) {
        if (in == null) {
          throw new IllegalStateException(resource + " is not on the class path (limiter-redis)");
        }
        body.append(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      if (i < SCRIPT_PARTS.size() - 1) {
        body.append('\n');
      }
    }
    return body.toString();
  }

  /** The rate state of one counter of the service's layout, and the epoch key. */
  private static String[] keys(String user) {
    long window = System.currentTimeMillis() / 1000;
    return new String[] {
      "sluice:rate:{rls:ceiling_user_" + user + "_" + window + "}:fixed-window", EPOCH_KEY
    };
  }

  /**
   * limit, period (µs), burst, cost, shaper, mode, epoch: a decision as the service's store sends
   * it (a counter kept two windows, mode 3: counted whatever the count, as envoy/ratelimit counts).
   */
  private static String[] args(String epoch) {
    String limit = Long.toString(EnvoyRateLimitRun.UNREFUSED_PER_SECOND);
    return new String[] {limit, "2000000", limit, "1", "0", "3", epoch};
  }

  /**
   * One decision's script call for {@code user}'s counter, as the service's store sends it, over
   * this ceiling's one connection; completes on Lettuce's thread, or exceptionally after 10 s.
   */
  CompletableFuture<List<Object>> call(String user) {
    return redis
        .<List<Object>>evalsha(sha, ScriptOutputType.MULTI, keys(user), args)
        .toCompletableFuture()
        .orTimeout(10, TimeUnit.SECONDS);
  }

  /** Keeps {@code inFlight} script calls open for {@code warmup} then {@code measured}. */
  RlsLoad.ClosedLoop closedLoop(int inFlight, Duration warmup, Duration measured)
      throws InterruptedException {
    RlsLoad.Window window = new RlsLoad.Window(warmup, measured);
    AtomicInteger next = new AtomicInteger();
    AtomicInteger open = new AtomicInteger(inFlight);
    for (int c = 0; c < inFlight; c++) {
      new Runnable() {
        @Override
        public void run() {
          String user = "u" + Math.floorMod(next.getAndIncrement(), EnvoyRateLimitRun.USERS);
          // the next call is sent from the completion: nothing waits on this future
          CompletableFuture<List<Object>> unused = call(user).whenComplete((reply, error) -> {
            if (window.answered(System.nanoTime(), error != null, open)) {
              run();
            }
          });
        }
      }.run();
    }
    window.await(open);
    return window.result(inFlight, measured);
  }

  @Override
  public void close() {
    connection.close();
    client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
  }
}
