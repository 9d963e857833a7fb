package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code lease_acquire.lua} called directly: the permits a node granted on its local share while
 * Redis was down, and has not written back yet, count as held for that node's next acquire.
 */
@Tag("integration")
class LeaseAcquireScriptTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final LuaScript ACQUIRE = LuaScript.load("lease_acquire");
  private static RedisClient client;
  private static StatefulRedisConnection<String, String> connection;
  private static RedisAsyncCommands<String, String> redis;

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

  private static long acquire(String limiter, String id, int max, int unwritten) throws Exception {
    return ACQUIRE
        .runForLong(
            redis,
            new String[] {
              KeyLayout.permits(limiter),
              KeyLayout.permitLine(limiter),
              KeyLayout.permitLineTtl(limiter)
            },
            Integer.toString(max),
            "30000000",
            id,
            "0",
            "",
            "2000000",
            KeyLayout.permitsFreed(limiter),
            Integer.toString(unwritten))
        .get(5, TimeUnit.SECONDS);
  }

  @Test
  void permitsGrantedLocallyAndNotYetWrittenCountAsHeld() throws Exception {
    String limiter = "script-" + UUID.randomUUID();
    assertThat(acquire(limiter, "a:1", 3, 0)).isEqualTo(1);

    // one held in Redis, two granted locally on the asking node: the maximum of 3 is reached
    assertThat(acquire(limiter, "b:1", 3, 2)).isZero();
    assertThat(acquire(limiter, "b:2", 3, 1)).isEqualTo(1);
    assertThat(acquire(limiter, "c:1", 3, 0)).isEqualTo(1);
    assertThat(acquire(limiter, "c:2", 3, 0)).isZero();
    assertThat(REDIS.server().command("ZCARD", KeyLayout.permits(limiter))).isEqualTo("3");
  }

  @Test
  void onlyASlotMoveRefusalIsSentAgain() {
    RedisCommandExecutionException tryAgain = new RedisCommandExecutionException(
        "TRYAGAIN Multiple keys request during rehashing of slot");
    assertThat(LuaScript.refusedDuringSlotMove(tryAgain)).isTrue();
    assertThat(LuaScript.refusedDuringSlotMove(new CompletionException(tryAgain)))
        .isTrue();
    assertThat(LuaScript.refusedDuringSlotMove(
            new RedisCommandExecutionException("CLUSTERDOWN The cluster is down")))
        .isFalse();
    assertThat(LuaScript.refusedDuringSlotMove(new IllegalStateException("TRYAGAIN")))
        .isFalse();
  }
}
