package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreLoader;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import dev.sluice.time.NanoClock;
import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Core finds this module through ServiceLoader for redis:// and rediss:// URIs only. */
@Tag("integration")
class RedisStoreProviderTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  @Test
  void supportsRedisSchemesOnly() {
    RedisStoreProvider provider = new RedisStoreProvider();

    assertThat(provider.supports(URI.create("redis://127.0.0.1:6379"))).isTrue();
    assertThat(provider.supports(URI.create("rediss://cache.example:6380"))).isTrue();
    assertThat(provider.supports(URI.create("http://127.0.0.1:6379"))).isFalse();
  }

  @Test
  void theStoreLoaderOpensRedisStoresForARedisUri() {
    RedisServer server = REDIS.server();
    StoreSettings settings = new StoreSettings(
        server.uri(), Duration.ofMillis(500), 1, FailurePolicy.LOCAL, NanoClock.system());

    Optional<Stores> stores = StoreLoader.open(settings);

    assertThat(stores).containsInstanceOf(RedisStores.class);
    RedisStores redis = (RedisStores) stores.orElseThrow();
    try {
      assertThat(redis.state()).isEqualTo(RedisState.UP);
      assertThat(redis.describe()).isEqualTo(server.uri() + " (up)");
      // connected when opened: the first decision is made in Redis
      RateRequest request = new RateRequest(
          "rule", "actor", Algorithm.TOKEN_BUCKET, RateLimit.of(10, Duration.ofHours(1)), 1);
      assertThat(Nodes.decide(redis, request, Duration.ofSeconds(5)).allowed()).isTrue();
      assertThat(redis.degradedDecisions()).isZero();
    } finally {
      redis.close();
    }
  }
}
