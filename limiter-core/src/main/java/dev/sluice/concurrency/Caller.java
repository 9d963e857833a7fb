package dev.sluice.concurrency;

import java.time.Duration;
import java.util.Objects;

/**
 * Who asks for a permit, as far as the queue discipline and the deadline care: a key (the tenant a
 * fair queue groups by), a {@link Priority} class, a cost (how many units of the limit the request
 * takes, and what a fair queue charges it) and an optional timeout tighter than the limiter's {@code queueTimeout} (e.g. from the client's
 * own deadline). Immutable; {@link #DEFAULT} is what {@link ConcurrencyLimiter#acquire()} uses.
 *
 * <pre>{@code
 * limiter.acquire(Caller.of("host-7").withPriority(Priority.CRITICAL));
 * }</pre>
 */
public final class Caller {

  /** The key of callers that carry none (a missing header): they queue under one shared key. */
  public static final String UNKNOWN_KEY = "unknown";

  /** No key, {@link Priority#NORMAL}, cost 1, the limiter's own timeout. */
  public static final Caller DEFAULT = new Caller(UNKNOWN_KEY, Priority.NORMAL, 1, null);

  private final String key;
  private final Priority priority;
  private final int cost;
  private final Duration timeout;

  private Caller(String key, Priority priority, int cost, Duration timeout) {
    this.key = key;
    this.priority = priority;
    this.cost = cost;
    this.timeout = timeout;
  }

  /** A caller with this key (null or blank: {@link #UNKNOWN_KEY}), class normal, cost 1. */
  public static Caller of(String key) {
    return DEFAULT.withKey(key);
  }

  /** The same caller with another key (null or blank: {@link #UNKNOWN_KEY}). */
  public Caller withKey(String newKey) {
    String k = newKey == null || newKey.isBlank() ? UNKNOWN_KEY : newKey;
    return new Caller(k, priority, cost, timeout);
  }

  /** The same caller in another class. */
  public Caller withPriority(Priority newPriority) {
    return new Caller(
        key, Objects.requireNonNull(newPriority, "priority must not be null"), cost, timeout);
  }

  /**
   * The same caller with another cost, at least 1: the units of the limit its permit takes (a job
   * of cost 3 under a limit of 8 leaves 5 for the others; a cost above the whole limit runs alone)
   * and what a fair queue charges its key for it. A global limiter charges the cost on its node's
   * own stage (its share of the work); in the shared store each caller holds one lease.
   */
  public Caller withCost(int newCost) {
    return new Caller(key, priority, LimiterSpec.requireAtLeast("cost", newCost, 1), timeout);
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
    return new Caller(key, priority, cost, newTimeout);
  }

  /** The fair queue's key; {@link #UNKNOWN_KEY} when the caller has none. Never null. */
  public String key() {
    return key;
  }

  /** The class; never null. */
  public Priority priority() {
    return priority;
  }

  /** The cost of the request in units of the limit, at least 1. */
  public int cost() {
    return cost;
  }

  /** The caller's own timeout, or null to use the limiter's. */
  public Duration timeout() {
    return timeout;
  }

  @Override
  public String toString() {
    return "Caller[" + key + ", " + priority + ", cost=" + cost
        + (timeout == null ? "" : ", timeout=" + timeout) + "]";
  }
}
