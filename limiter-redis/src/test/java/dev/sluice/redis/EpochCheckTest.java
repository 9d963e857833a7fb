package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The epoch check in front of every rate script ({@code epoch_check.lua}), called directly: a
 * decision sent with an epoch that is not the current one decides nothing and writes nothing.
 */
@Tag("integration")
class EpochCheckTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisAsyncCommands<String, String> redis;
  private final RateScripts scripts = new RateScripts();

  @BeforeAll
  static void connect() {
    client = RedisClient.create(REDIS.server().uri().toString());
    connection = client.connect();
    redis = connection.async();
  }

  @AfterAll
  static void close() {
    connection.close();
    client.shutdown();
  }

  @BeforeEach
  void emptyRedis() {
    REDIS.server().command("FLUSHALL");
  }

  private static RateRequest request(Algorithm algorithm) {
    return new RateRequest(
        "rule-" + UUID.randomUUID(), "actor", algorithm, RateLimit.of(5, Duration.ofHours(1)), 1);
  }

  private static String stateKey(RateRequest request) {
    return KeyLayout.rate(request.ruleId(), request.key(), request.algorithm());
  }

  private List<Object> acquire(RateRequest request, String epoch) throws Exception {
    return scripts.acquire(redis, request, epoch).get(5, TimeUnit.SECONDS);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aCallerWithoutAnEpochLearnsOneAndNothingIsDecided(Algorithm algorithm) throws Exception {
    RateRequest request = request(algorithm);

    String epoch = RateScripts.lostEpoch(acquire(request, ""));

    assertThat(epoch).isNotBlank().isEqualTo(REDIS.server().command("GET", LossWatch.EPOCH_KEY));
    assertThat(REDIS.server().command("EXISTS", stateKey(request))).isEqualTo("0");
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void theCurrentEpochDecides(Algorithm algorithm) throws Exception {
    RateRequest request = request(algorithm);
    String epoch = RateScripts.lostEpoch(acquire(request, ""));

    List<Object> reply = acquire(request, epoch);

    assertThat(RateScripts.lostEpoch(reply)).isNull();
    assertThat(RateScripts.decision(request, reply).allowed()).isTrue();
    assertThat(RateScripts.decision(request, reply).remaining()).isEqualTo(4);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void afterALossAnOldEpochDecidesNothingAndWritesNothing(Algorithm algorithm) throws Exception {
    RateRequest request = request(algorithm);
    String before = RateScripts.lostEpoch(acquire(request, ""));
    assertThat(RateScripts.decision(request, acquire(request, before)).allowed())
        .isTrue();

    REDIS.server().command("FLUSHALL");
    List<Object> reply = acquire(request, before);

    String after = RateScripts.lostEpoch(reply);
    assertThat(after).isNotNull().isNotEqualTo(before);
    assertThat(REDIS.server().command("EXISTS", stateKey(request))).isEqualTo("0");
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void chargesAndRefundsAreNotChecked(Algorithm algorithm) throws Exception {
    RateRequest request = request(algorithm);

    scripts
        .charge(redis, Debts.recentCharge(request, System.nanoTime()), System.nanoTime())
        .get(5, TimeUnit.SECONDS);

    assertThat(REDIS.server().command("EXISTS", stateKey(request))).isEqualTo("1");
    assertThat(REDIS.server().command("EXISTS", LossWatch.EPOCH_KEY)).isEqualTo("0");
  }
}
