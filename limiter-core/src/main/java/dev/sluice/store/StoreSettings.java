package dev.sluice.store;

import dev.sluice.time.NanoClock;
import java.net.URI;
import java.time.Duration;
import java.util.Objects;

/**
 * How to reach and use a shared store.
 *
 * @param uri where the store is, e.g. {@code redis://127.0.0.1:6379}
 * @param timeout the bound on every call to the store
 * @param expectedNodes how many nodes share the global limits; a node's local share while the store
 *     is down is the limit divided by this
 * @param onFailure what global rules do while the store is down
 * @param clock the local clock, used only for local decisions while degraded
 */
public record StoreSettings(
    URI uri, Duration timeout, int expectedNodes, FailurePolicy onFailure, NanoClock clock) {

  public StoreSettings {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onFailure, "onFailure");
    Objects.requireNonNull(clock, "clock");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + timeout);
    }
    if (expectedNodes < 1) {
      throw new IllegalArgumentException("expectedNodes must be >= 1 but was " + expectedNodes);
    }
  }
}
