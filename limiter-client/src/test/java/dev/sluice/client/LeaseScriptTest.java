package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The leases' script goes to Redis by its digest (EVALSHA), and a Redis that lost it (SCRIPT FLUSH,
 * a restart) gets the body once more without costing a round: limiter-redis's script runner.
 */
@Tag("integration")
class LeaseScriptTest {

  private static PartitionLeases leases(RedisServer redis, List<Long> paces) {
    return PartitionLeases.builder(
            redis.uri(),
            PartitionLeasesConfig.custom("scripts")
                .partitions(10, 25)
                .leaseTime(Duration.ofMillis(1_500))
                .headroom(0)
                .build())
        .owner("a")
        .onPace(paces::add)
        .build();
  }

  @Test
  void leaseRoundsSendTheScriptByItsDigest() {
    try (RedisServer redis = RedisServer.start();
        PartitionLeases leases = leases(redis, new CopyOnWriteArrayList<>())) {
      leases.want(4);

      await().atMost(Duration.ofSeconds(20)).until(() -> redis.calls("evalsha") >= 5);
      assertThat(leases.held()).isEqualTo(4);
      // the first EVALSHA met NOSCRIPT and one EVAL sent the body; every round since is a digest
      assertThat(redis.calls("eval")).isEqualTo(1);
    }
  }

  @Test
  void aScriptFlushCostsOneEvalAndNoPartition() {
    List<Long> paces = new CopyOnWriteArrayList<>();
    try (RedisServer redis = RedisServer.start();
        PartitionLeases leases = leases(redis, paces)) {
      leases.want(4);
      await().atMost(Duration.ofSeconds(10)).until(() -> leases.held() == 4);

      redis.command("SCRIPT", "FLUSH");
      redis.command("CONFIG", "RESETSTAT");

      await().atMost(Duration.ofSeconds(20)).until(() -> redis.calls("evalsha") >= 3);
      assertThat(redis.calls("eval")).isEqualTo(1);
      assertThat(leases.held()).isEqualTo(4);
      assertThat(paces).as("the pace never dropped").containsExactly(0L, 100L);
    }
  }
}
