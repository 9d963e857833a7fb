package dev.sluice.javalin;

import java.time.Duration;
import java.util.Objects;

/**
 * One named concurrency limiter, set in code through {@link SluiceConfig#limiter}. Properties
 * {@code sluice.limiters.<name>.*} for the same name override these values, so operators can tune a
 * limit without a rebuild.
 */
public final class LimiterConfig {

  /** Default permits when neither code nor properties say otherwise. */
  public static final int DEFAULT_MAX_CONCURRENCY = 4;
  /** Default queue bound. */
  public static final int DEFAULT_MAX_QUEUE = 32;
  /** Default time a request may wait in the queue before it is answered 504. */
  public static final Duration DEFAULT_QUEUE_TIMEOUT = Duration.ofSeconds(60);

  private final String name;
  private String path;
  private Integer maxConcurrency;
  private Integer maxQueue;
  private Duration queueTimeout;

  LimiterConfig(String name) {
    this.name = Objects.requireNonNull(name, "name");
  }

  public String name() {
    return name;
  }

  /**
   * The path pattern this limiter guards: an exact path, {@code /prefix/*} (one segment) or
   * {@code /prefix/**} (any depth). Without a path the limiter is used only by
   * {@link SluicePlugin#limited(String, io.javalin.http.Handler)}.
   */
  public LimiterConfig path(String pattern) {
    this.path = Objects.requireNonNull(pattern, "pattern");
    return this;
  }

  /** Requests served at once (>= 1). */
  public LimiterConfig maxConcurrency(int n) {
    this.maxConcurrency = n;
    return this;
  }

  /** Requests that may wait for a permit (>= 0); one more is answered 429 at once. */
  public LimiterConfig maxQueue(int n) {
    this.maxQueue = n;
    return this;
  }

  /** How long a request may wait in the queue (> 0); then it is answered 504. */
  public LimiterConfig queueTimeout(Duration timeout) {
    this.queueTimeout = Objects.requireNonNull(timeout, "timeout");
    return this;
  }

  String pathOrNull() {
    return path;
  }

  Integer maxConcurrencyOrNull() {
    return maxConcurrency;
  }

  Integer maxQueueOrNull() {
    return maxQueue;
  }

  Duration queueTimeoutOrNull() {
    return queueTimeout;
  }
}
