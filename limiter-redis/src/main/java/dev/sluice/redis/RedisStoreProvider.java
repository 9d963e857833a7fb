package dev.sluice.redis;

import dev.sluice.store.StoreProvider;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import java.net.URI;

/**
 * Registers Redis for {@code redis://}, {@code rediss://} and {@code redis-sentinel://} URIs
 * ({@code redis-sentinel://host1:26379,host2:26379#mymaster}: Lettuce asks the sentinels for the
 * master and follows a failover) with core's store loader.
 */
public final class RedisStoreProvider implements StoreProvider {

  @Override
  public boolean supports(URI uri) {
    String scheme = uri.getScheme();
    return "redis".equalsIgnoreCase(scheme)
        || "rediss".equalsIgnoreCase(scheme)
        || "redis-sentinel".equalsIgnoreCase(scheme);
  }

  @Override
  public Stores open(StoreSettings settings) {
    return RedisStores.open(settings);
  }
}
