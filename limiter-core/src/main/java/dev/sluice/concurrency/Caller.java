package dev.sluice.concurrency;

import java.time.Duration;
import java.util.Objects;

/**
 * Who asks for a permit, as far as the queue discipline and the deadline care: a key (the tenant a
 * fair queue groups by), a {@link Priority} class, a weight (a fair queue's cost of the request)
 * and an optional timeout tighter than the limiter's {@code queueTimeout} (e.g. from the client's
 * own deadline). Immutable; {@link #DEFAULT} is what {@link ConcurrencyLimiter#acquire()} uses.
 *
 * <pre>{@code
 * limiter.acquire(Caller.of("host-7").withPriority(Priority.CRITICAL));
 * }</pre>
 */
public final class Caller {

  /** The key of callers that carry none (a missing header): they queue under one shared key. */
  public static final String UNKNOWN_KEY = "unknown";

  /** No key, {@link Priority#NORMAL}, weight 1, the limiter's own timeout. */
  public static final Caller DEFAULT = new Caller(UNKNOWN_KEY, Priority.NORMAL, 1, null);

  private final String key;
  private final Priority priority;
  private final int weight;
  private final Duration timeout;

  private Caller(String key, Priority priority, int weight, Duration timeout) {
    this.key = key;
    this.priority = priority;
    this.weight = weight;
    this.timeout = timeout;
  }

  /** A caller with this key (null or blank: {@link #UNKNOWN_KEY}), class normal, weight 1. */
  public static Caller of(String key) {
    return DEFAULT.withKey(key);
  }

  /** The same caller with another key (null or blank: {@link #UNKNOWN_KEY}). */
  public Caller withKey(String newKey) {
    String k = newKey == null || newKey.isBlank() ? UNKNOWN_KEY : newKey;
    return new Caller(k, priority, weight, timeout);
  }

  /** The same caller in another class. */
  public Caller withPriority(Priority newPriority) {
    return new Caller(key, Objects.requireNonNull(newPriority, "priority must not be null"),
        weight, timeout);
  }

  /** The same caller with another weight, at least 1. */
  public Caller withWeight(int newWeight) {
    return new Caller(key, priority, LimiterSpec.requireAtLeast("weight", newWeight, 1),
        timeout);
  }

  /**
   * The same caller with its own longest wait; the limiter uses the shorter of this and its {@code
   * queueTimeout}.
   */
  public Caller withTimeout(Duration newTimeout) {
    Objects.requireNonNull(newTimeout, "timeout must not be null");
    if (newTimeout.isNegative() || newTimeout.isZero()) {
      throw new IllegalArgumentException("timeout must be > 0 but was " + newTimeout);
    }
    return new Caller(key, priority, weight, newTimeout);
  }

  /** The fair queue's key; {@link #UNKNOWN_KEY} when the caller has none. Never null. */
  public String key() {
    return key;
  }

  /** The class; never null. */
  public Priority priority() {
    return priority;
  }

  /** The weight (cost) of the request, at least 1. */
  public int weight() {
    return weight;
  }

  /** The caller's own timeout, or null to use the limiter's. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public String toString() {
    return "Caller[" + key + ", " + priority + ", weight=" + weight
        + (timeout == null ? "" : ", timeout=" + timeout) + "]";
  }
}
