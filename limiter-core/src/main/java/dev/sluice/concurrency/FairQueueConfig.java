package dev.sluice.concurrency;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Settings of a fair queue ({@link WaitQueue#fair(FairQueueConfig)}): the per-key cap and the
 * weights of chosen keys. Immutable; build with {@link #builder()}.
 *
 * <pre>{@code
 * WaitQueue queue = WaitQueue.fair(FairQueueConfig.builder()
 *     .maxQueuePerKey(4)          // one key holds at most 4 of the queue's slots
 *     .keyWeight("rescue", 3)     // served 3 times as often as a key of weight 1
 *     .build());
 * }</pre>
 */
public final class FairQueueConfig {

  /** No per-key cap, every key weighs 1. */
  public static final FairQueueConfig DEFAULT = builder().build();

  private final int maxQueuePerKey;
  private final Map<String, Integer> keyWeights;

  private FairQueueConfig(Builder builder) {
    this.maxQueuePerKey = builder.maxQueuePerKey;
    this.keyWeights = Map.copyOf(builder.keyWeights);
  }

  /** A builder with no cap and no weights. */
  public static Builder builder() {
    return new Builder();
  }

  /** The most waiters one key may have queued; 0 means no cap (only the queue's bound). */
  public int maxQueuePerKey() {
    return maxQueuePerKey;
  }

  /** The configured key weights; keys not listed weigh 1. */
  public Map<String, Integer> keyWeights() {
    return keyWeights;
  }

  /** The weight of {@code key}: what it earns per round, relative to a key of weight 1. */
  public int weightOf(String key) {
    Integer weight = keyWeights.get(key);
    return weight == null ? 1 : weight;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof FairQueueConfig other
        && maxQueuePerKey == other.maxQueuePerKey
        && keyWeights.equals(other.keyWeights);
  }

  @Override
  public int hashCode() {
    return 31 * maxQueuePerKey + keyWeights.hashCode();
  }

  @Override
  public String toString() {
    return "FairQueueConfig[maxQueuePerKey=" + maxQueuePerKey + ", keyWeights=" + keyWeights + "]";
  }

  /** Validates each value as it is set, naming the setting and the value. */
  public static final class Builder {

    private int maxQueuePerKey;
    private final Map<String, Integer> keyWeights = new LinkedHashMap<>();

    private Builder() {}

    /** The most waiters one key may have queued, at least 0; 0 (the default) means no cap. */
    public Builder maxQueuePerKey(int n) {
      this.maxQueuePerKey = LimiterSpec.requireAtLeast("maxQueuePerKey", n, 0);
      return this;
    }

    /**
     * Gives {@code key} a weight, at least 1 (default 1): with every key backlogged, a key of
     * weight 3 is granted 3 permits per round where a key of weight 1 gets one.
     */
    public Builder keyWeight(String key, int weight) {
      Objects.requireNonNull(key, "key must not be null");
      if (key.isBlank()) {
        throw new IllegalArgumentException(
            "key weight's key must not be blank but was '" + key + "'");
      }
      keyWeights.put(key, LimiterSpec.requireAtLeast("weight of key '" + key + "'", weight, 1));
      return this;
    }

    /** The settings. */
    public FairQueueConfig build() {
      return new FairQueueConfig(this);
    }
  }
}
