package dev.sluice.store;

import java.util.Optional;
import java.util.ServiceLoader;

/** Finds the {@link StoreProvider} for a URI on the classpath. */
public final class StoreLoader {

  private StoreLoader() {}

  /**
   * Opens the stores of the first provider that supports the URI.
   *
   * @return empty when no provider on the classpath supports the URI's scheme
   */
  public static Optional<Stores> open(StoreSettings settings) {
    for (StoreProvider provider : ServiceLoader.load(StoreProvider.class)) {
      if (provider.supports(settings.uri())) {
        return Optional.of(provider.open(settings));
      }
    }
    return Optional.empty();
  }
}
