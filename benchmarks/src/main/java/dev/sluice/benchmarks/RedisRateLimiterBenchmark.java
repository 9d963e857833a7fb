package dev.sluice.benchmarks;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.redis.RedisStores;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.github.bucket4j.redis.lettuce.cas.LettuceBasedProxyManager;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One global token-bucket decision in Redis per call: Sluice's {@code limiter-redis} (one EVALSHA)
 * beside Bucket4j's Lettuce-based proxy manager (compare-and-swap), on the same redis-server, in
 * the same class and run. Each thread is its own actor (its own key), as many users behind many
 * threads would be; the limit is far above what the run can reach, so every decision is an
 * "allowed" that writes state, for both.
 *
 * <p>{@code ceiling} is what Sluice's decisions could reach at most over one connection from this
 * JVM: the same script (the same digest, keys and arguments, {@code SCRIPT LOAD}ed from the jar's
 * resources) sent with EVALSHA in a tight loop of Lettuce's synchronous API, with nothing of
 * Sluice around it. (The server's own ceiling, without a JVM client, is {@code redis-benchmark}
 * running the same EVALSHA: see the README.)
 *
 * <p>Run with {@code -t 1}, {@code -t 16} and {@code -t 64}; throughput is decisions per
 * microsecond (x 10^6 = per second), sample time gives the p99 latency in microseconds. Needs a redis-server at {@code redisUri} (default 127.0.0.1:6379).
 */
@State(Scope.Benchmark)
@BenchmarkMode({Mode.Throughput, Mode.SampleTime})
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 3)
@Fork(1)
public class RedisRateLimiterBenchmark {

  private static final long HUGE = 1_000_000_000L;

  @Param("redis://127.0.0.1:6379")
  public String redisUri;

  private RedisStores sluice;
  private RedisStores sluiceBatched;
  private RateLimit limit;
  private RedisClient bucket4jClient;
  private StatefulRedisConnection<String, byte[]> bucket4jConnection;
  private LettuceBasedProxyManager<String> bucket4j;
  private BucketConfiguration bucket4jConfig;
  private RedisClient ceilingClient;
  private StatefulRedisConnection<String, String> ceilingConnection;
  private String tatSha;
  private String epoch;

  @Setup(Level.Trial)
  public void open() {
    // a generous timeout: the benchmark measures Redis decisions, not the fallback
    sluice = RedisStores.open(new StoreSettings(
        URI.create(redisUri), Duration.ofSeconds(2), 1, FailurePolicy.LOCAL, NanoClock.system()));
    // batched mode: 100 permits per round trip, handed out locally (limiter-redis README)
    sluiceBatched = RedisStores.open(new StoreSettings(
        URI.create(redisUri + "?batch=100"),
        Duration.ofSeconds(2),
        1,
        FailurePolicy.LOCAL,
        NanoClock.system()));
    limit = RateLimit.of(HUGE, Duration.ofSeconds(1));

    bucket4jClient = RedisClient.create(redisUri);
    bucket4jConnection =
        bucket4jClient.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
    bucket4j = Bucket4jLettuce.casBasedBuilder(bucket4jConnection)
        .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
            Duration.ofSeconds(10)))
        .build();
    bucket4jConfig = BucketConfiguration.builder()
        .addLimit(bandwidth -> bandwidth.capacity(HUGE).refillGreedy(HUGE, Duration.ofSeconds(1)))
        .build();

    ceilingClient = RedisClient.create(redisUri);
    ceilingConnection = ceilingClient.connect();
    // the body limiter-redis sends for a token bucket: its two preludes, then the script
    tatSha = ceilingConnection
        .sync()
        .scriptLoad(script("epoch_check") + "\n" + script("charge_once") + "\n" + script("tat"));
    sluice
        .rates()
        .tryAcquire(List.of(new RateRequest("bench", "warm", Algorithm.TOKEN_BUCKET, limit, 1)))
        .toCompletableFuture()
        .join(); // sets the epoch key
    epoch = ceilingConnection.sync().get("sluice:epoch");
    if (epoch == null) {
      throw new IllegalStateException("no sluice:epoch key after a Sluice decision");
    }
  }

  private static String script(String name) {
    String resource = "/dev/sluice/redis/" + name + ".lua";
    try (InputStream in = RedisStores.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException(resource + " is not in limiter-redis's jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @TearDown(Level.Trial)
  public void close() {
    ceilingConnection.close();
    ceilingClient.shutdown();
    long degraded = sluice.degradedDecisions() + sluiceBatched.degradedDecisions();
    sluice.close();
    sluiceBatched.close();
    bucket4jConnection.close();
    bucket4jClient.shutdown();
    if (degraded > 0) {
      throw new IllegalStateException(degraded + " Sluice decisions fell back to local: "
          + "the figures are not Redis round trips");
    }
  }

  /** One actor per thread. */
  @State(Scope.Thread)
  public static class Actor {
    RateRequest sluiceRequest;
    BucketProxy bucket4jBucket;
    String[] ceilingKeys;
    String[] ceilingArgs;

    @Setup(Level.Trial)
    public void open(RedisRateLimiterBenchmark benchmark) {
      String actor = "bench-" + UUID.randomUUID();
      sluiceRequest = new RateRequest("bench", actor, Algorithm.TOKEN_BUCKET, benchmark.limit, 1);
      bucket4jBucket = benchmark.bucket4j.builder().build(actor, () -> benchmark.bucket4jConfig);
      // what limiter-redis sends for this request (seen with MONITOR): the state key, the epoch
      // key; limit, period in µs, burst, cost, shaper, mode, the node's epoch
      ceilingKeys =
          new String[] {"sluice:rate:{bench:ceiling-" + actor + "}:token-bucket", "sluice:epoch"};
      ceilingArgs = new String[] {
        Long.toString(HUGE), "1000000", Long.toString(HUGE), "1", "0", "0", benchmark.epoch
      };
    }
  }

  @Benchmark
  public boolean sluice(Actor actor) {
    List<RateDecision> decisions = sluice
        .rates()
        .tryAcquire(List.of(actor.sluiceRequest))
        .toCompletableFuture()
        .join();
    return decisions.get(0).allowed();
  }

  /** Not like for like: one round trip per 100 decisions (batched mode), shown for the trade-off. */
  @Benchmark
  public boolean sluiceBatched(Actor actor) {
    List<RateDecision> decisions = sluiceBatched
        .rates()
        .tryAcquire(List.of(actor.sluiceRequest))
        .toCompletableFuture()
        .join();
    return decisions.get(0).allowed();
  }

  /** The ceiling: the same EVALSHA over one connection, nothing of Sluice around it. */
  @Benchmark
  public Object ceiling(Actor actor) {
    RedisCommands<String, String> redis = ceilingConnection.sync();
    List<Object> answer =
        redis.evalsha(tatSha, ScriptOutputType.MULTI, actor.ceilingKeys, actor.ceilingArgs);
    return answer.get(0);
  }

  @Benchmark
  public boolean bucket4j(Actor actor) {
    return actor.bucket4jBucket.tryConsume(1);
  }
}
