package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.net.URI;
import java.time.Duration;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** A replica started while Redis is not there divides alone, and joins the others once it is. */
@Tag("integration")
class QuotaDemandsReconnectTest {

  private static final Duration TTL = Duration.ofMinutes(1);

  @Test
  void aReplicaStartedBeforeRedisUsesItOnceItAnswers() throws Exception {
    int port = RedisServer.freePort();
    URI uri = URI.create("redis://127.0.0.1:" + port);
    try (RedisDemands early = RedisDemands.open(uri, Duration.ofSeconds(2))) {
      SortedMap<String, Double> alone =
          early.report("b", "early", 5, TTL).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(alone).containsOnlyKeys("early");
      try (RedisServer redis = RedisServer.onPort(port)) {
        try (RedisDemands other = RedisDemands.open(redis.uri(), Duration.ofSeconds(2))) {
          other.report("b", "other", 7, TTL).toCompletableFuture().get(10, TimeUnit.SECONDS);
          await()
              .atMost(Duration.ofSeconds(10))
              .untilAsserted(() -> assertThat(early
                      .report("b", "early", 5, TTL)
                      .toCompletableFuture()
                      .get(10, TimeUnit.SECONDS))
                  .containsOnlyKeys("early", "other"));
        }
      }
    }
  }
}
