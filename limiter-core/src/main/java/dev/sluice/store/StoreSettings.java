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
 * @param connectTimeout the bound on opening a connection (TCP connect and handshake), separate
 *     from {@code timeout}: a first connect on a busy machine can take longer than a decision may,
 *     and a slow connect is not an outage
 */
public record StoreSettings(
    URI uri,
    Duration timeout,
    int expectedNodes,
    FailurePolicy onFailure,
    NanoClock clock,
    Duration connectTimeout) {

  /** Default bound on opening a connection. */
  public static final Duration DEFAULT_CONNECT_TIMEOUT = Duration.ofSeconds(1);

  public StoreSettings {
    Objects.requireNonNull(uri, "uri");
    Objects.requireNonNull(timeout, "timeout");
    Objects.requireNonNull(onFailure, "onFailure");
    Objects.requireNonNull(clock, "clock");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    if (timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + timeout);
    }
    if (connectTimeout.isNegative() || connectTimeout.isZero()) {
      throw new IllegalArgumentException("connectTimeout must be > 0 but was " + connectTimeout);
    }
    if (expectedNodes < 1) {
      throw new IllegalArgumentException("expectedNodes must be >= 1 but was " + expectedNodes);
    }
  }

  /** Settings with the default connect timeout ({@link #DEFAULT_CONNECT_TIMEOUT}). */
  public StoreSettings(
      URI uri, Duration timeout, int expectedNodes, FailurePolicy onFailure, NanoClock clock) {
    this(uri, timeout, expectedNodes, onFailure, clock, DEFAULT_CONNECT_TIMEOUT);
  }
}
