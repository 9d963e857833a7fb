package dev.sluice.redis;

import dev.sluice.store.StoreProvider;
import dev.sluice.store.StoreSettings;
import dev.sluice.store.Stores;
import java.net.URI;

/** Registers Redis for {@code redis://} and {@code rediss://} URIs with core's store loader. */
public final class RedisStoreProvider implements StoreProvider {

  @Override
  public boolean supports(URI uri) {
    String scheme = uri.getScheme();
    return "redis".equalsIgnoreCase(scheme) || "rediss".equalsIgnoreCase(scheme);
  }

  @Override
  public Stores open(StoreSettings settings) {
    return RedisStores.open(settings);
  }
}
