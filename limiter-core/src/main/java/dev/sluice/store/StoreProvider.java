package dev.sluice.store;

import java.net.URI;

/**
 * Service-provider interface for shared stores, found through {@link java.util.ServiceLoader}: putting
 * an implementation (such as {@code limiter-redis}) on the classpath and configuring its URI turns
 * global scope on, without the plugin depending on it.
 */
public interface StoreProvider {

  /** Whether this provider handles the URI (for example by its scheme). */
  boolean supports(URI uri);

  /** Opens the stores; connection failures degrade rather than throw. */
  Stores open(StoreSettings settings);
}
