package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One named concurrency limiter's settings: immutable, checked when set. Code and properties fill
 * the same {@link Builder}: {@link SluiceConfig#limiter} hands the code's lambda a builder, then the
 * properties {@code sluice.limiters.<name>.*} are parsed onto it (so operators can tune a limit
 * without a rebuild), with the same checks and the same defaults, those of {@link
 * ConcurrencyLimiter} ({@code DEFAULT_MAX_CONCURRENCY}, ...).
 *
 * <pre>{@code
 * LimiterConfig transcode = LimiterConfig.custom("transcode")
 *     .path("/api/transcode").maxConcurrency(2).maxQueue(16).build();
 * LimiterConfig wider = LimiterConfig.from(transcode).maxConcurrency(4).build();
 * SluicePlugin sluice = new SluicePlugin(cfg -> cfg.limiter(transcode));
 * }</pre>
 *
 * <p>Every property, its default and what it means: the plugin's README.
 */
public final class LimiterConfig {

  /** Where a value set through the builder's setters comes from, in messages. */
  public static final String CODE = "code";

  /**
   * Default permits.
   *
   * @deprecated use {@link ConcurrencyLimiter#DEFAULT_MAX_CONCURRENCY}, the one default
   */
  @Deprecated
  public static final int DEFAULT_MAX_CONCURRENCY = ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY;

  /**
   * Default queue bound.
   *
   * @deprecated use {@link ConcurrencyLimiter#DEFAULT_MAX_QUEUE}, the one default
   */
  @Deprecated
  public static final int DEFAULT_MAX_QUEUE = ConcurrencyLimiter.DEFAULT_MAX_QUEUE;

  /**
   * Default longest wait in the queue.
   *
   * @deprecated use {@link ConcurrencyLimiter#DEFAULT_QUEUE_TIMEOUT}, the one default
   */
  @Deprecated
  public static final Duration DEFAULT_QUEUE_TIMEOUT = ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT;

  private final String name;
  private final Map<Key<?>, Object> values;
  private final Map<Key<?>, String> sources;

  private LimiterConfig(Builder b) {
    this.name = b.name;
    this.values = Collections.unmodifiableMap(new LinkedHashMap<>(b.values));
    this.sources = Collections.unmodifiableMap(new LinkedHashMap<>(b.sources));
  }

  /** A builder starting from the defaults. */
  public static Builder custom(String name) {
    return new Builder(name);
  }

  /** A builder starting from {@code base} (same name, every value copied). */
  public static Builder from(LimiterConfig base) {
    Builder b = new Builder(base.name);
    b.values.putAll(base.values);
    b.sources.putAll(base.sources);
    return b;
  }

  /** A limiter with every default and no path. */
  public static LimiterConfig ofDefaults(String name) {
    return custom(name).build();
  }

  /** The limiter's name. */
  public String name() {
    return name;
  }

  /** The path pattern it guards; empty: only wrapped handlers use it. */
  public Optional<String> path() {
    return Optional.ofNullable(get(LimiterKeys.PATH));
  }

  /** Permits (the ceiling of an adaptive limit). */
  public int maxConcurrency() {
    return get(LimiterKeys.MAX_CONCURRENCY);
  }

  /** Waiting slots. */
  public int maxQueue() {
    return get(LimiterKeys.MAX_QUEUE);
  }

  /** Longest wait in the queue. */
  public Duration queueTimeout() {
    return get(LimiterKeys.QUEUE_TIMEOUT);
  }

  /** Local (this node) or global (leases in the shared store). */
  public Scope scope() {
    return get(LimiterKeys.SCOPE);
  }

  /** The value of any limiter key: the one set, else the key's default (may be null). */
  @SuppressWarnings("unchecked")
  public <T> T get(Key<T> key) {
    return values.containsKey(key) ? (T) values.get(key) : key.defaultValue();
  }

  /** Whether the key was set (in code or properties) rather than defaulted. */
  public boolean isSet(Key<?> key) {
    return values.containsKey(key);
  }

  /** Where the key's value came from: {@code code}, a file, an environment variable, ...; "default". */
  public String source(Key<?> key) {
    return sources.getOrDefault(key, "default");
  }

  /** The full property name of one of this limiter's keys. */
  public String property(Key<?> key) {
    return property(name, key);
  }

  public static String property(String limiter, Key<?> key) {
    return SluiceProperties.LIMITERS + limiter + "." + key.name();
  }

  /**
   * The core limiter spec these settings describe: every key but {@code path} and {@code scope}
   * (which choose where and which limiter) and {@code queue-key} (which says how a request's
   * queue key is found).
   *
   * @param cpu the CPU signals of {@code cpu-source=machine} and {@code process}
   */
  public LimiterSpec spec(CpuSignals cpu) {
    int max = maxConcurrency();
    int min = Math.min(get(LimiterKeys.MIN_CONCURRENCY), max);
    LimitSpec limit = switch (get(LimiterKeys.LIMIT)) {
      case CPU ->
        LimitSpec.cpu(
            get(LimiterKeys.TARGET_CPU),
            get(LimiterKeys.CPU_SOURCE) == LimiterKeys.CpuSource.PROCESS
                ? cpu.process()
                : cpu.machine(),
            min);
      case LATENCY -> LimitSpec.latency(min);
      case FIXED -> LimitSpec.fixed();
    };
    Duration delayTarget = get(LimiterKeys.QUEUE_DELAY_TARGET);
    Duration expected = get(LimiterKeys.EXPECTED_SERVICE_TIME);
    return LimiterSpec.custom()
        .queueDelayTarget(delayTarget == null ? Duration.ZERO : delayTarget)
        .expectedServiceTime(expected == null ? Duration.ZERO : expected)
        .maxConcurrency(max)
        .maxQueue(maxQueue())
        .queueTimeout(queueTimeout())
        .rejectEarly(get(LimiterKeys.REJECT_EARLY))
        .leaseTime(get(LimiterKeys.LEASE_TIME))
        .limit(limit)
        .queue(QueueSettings.of(this).spec())
        .build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LimiterConfig other
        && name.equals(other.name)
        && values.equals(other.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, values);
  }

  @Override
  public String toString() {
    StringBuilder sb = new StringBuilder("LimiterConfig[").append(name);
    for (Key<?> key : LimiterKeys.ALL) {
      if (isSet(key)) {
        sb.append(", ").append(key.name()).append('=').append(get(key));
      }
    }
    return sb.append(']').toString();
  }

  /**
   * Builds a {@link LimiterConfig}. Every setter checks its value at once and throws {@link
   * SluiceConfigException} naming the property, e.g. {@code sluice.limiters.transcode.max-queue='-1'
   * (from code): must be >= 0}.
   */
  public static final class Builder {

    private final String name;
    private final Map<Key<?>, Object> values = new LinkedHashMap<>();
    private final Map<Key<?>, String> sources = new LinkedHashMap<>();

    private Builder(String name) {
      if (name == null || name.isBlank() || name.contains(".")) {
        throw new IllegalArgumentException(
            "limiter name must not be blank nor contain '.' but was '" + name + "'");
      }
      this.name = name;
    }

    /**
     * The path pattern this limiter guards: an exact path, {@code /prefix/*} (one segment) or
     * {@code /prefix/**} (any depth). Without a path the limiter is used only by {@link
     * SluicePlugin#limited(String, io.javalin.http.Handler)}.
     */
    public Builder path(String pattern) {
      return set(LimiterKeys.PATH, pattern);
    }

    /** Requests served at once (>= 1). */
    public Builder maxConcurrency(int n) {
      return set(LimiterKeys.MAX_CONCURRENCY, n);
    }

    /** Requests that may wait for a permit (>= 0); one more is answered 429 at once. */
    public Builder maxQueue(int n) {
      return set(LimiterKeys.MAX_QUEUE, n);
    }

    /** How long a request may wait in the queue (> 0); then it is answered 504. */
    public Builder queueTimeout(Duration timeout) {
      return set(LimiterKeys.QUEUE_TIMEOUT, timeout);
    }

    /** Local (default) or global; global needs {@code sluice.redis.uri}. */
    public Builder scope(Scope scope) {
      return set(LimiterKeys.SCOPE, scope);
    }

    /** An independent builder with the same values (properties are parsed onto a copy). */
    public Builder copy() {
      Builder b = new Builder(name);
      b.values.putAll(values);
      b.sources.putAll(sources);
      return b;
    }

    /** Sets any key from code, checked as a property would be. */
    public <T> Builder set(Key<T> key, T value) {
      return put(key, key.check(property(name, key), value), CODE);
    }

    /**
     * Parses a property's text onto this builder.
     *
     * @param source where the text came from, named in an error
     */
    public Builder parse(Key<?> key, String raw, String source) {
      return put(key, key.parse(property(name, key), raw, source), source);
    }

    /** Takes one key's value (and source) from {@code other}. */
    public void copyValue(Key<?> key, LimiterConfig other) {
      if (other.isSet(key)) {
        put(key, other.get(key), other.source(key));
      } else {
        values.remove(key);
        sources.remove(key);
      }
    }

    private Builder put(Key<?> key, Object value, String source) {
      values.put(key, value);
      sources.put(key, source);
      return this;
    }

    /**
     * The config.
     *
     * @throws SluiceConfigException when values contradict each other
     */
    public LimiterConfig build() {
      LimiterConfig config = new LimiterConfig(this);
      int min = config.get(LimiterKeys.MIN_CONCURRENCY);
      if (min > config.maxConcurrency()) {
        throw new SluiceConfigException(
            config.property(LimiterKeys.MIN_CONCURRENCY),
            Integer.toString(min),
            config.source(LimiterKeys.MIN_CONCURRENCY),
            "must be <= max-concurrency (" + config.maxConcurrency() + ", from "
                + config.source(LimiterKeys.MAX_CONCURRENCY) + ")");
      }
      int scale = config.get(LimiterKeys.COST_SCALE);
      if (scale != 1 && !LimiterKeys.declaredCost(config.get(LimiterKeys.COST))) {
        throw new SluiceConfigException(
            config.property(LimiterKeys.COST_SCALE),
            Integer.toString(scale),
            config.source(LimiterKeys.COST_SCALE),
            "applies to a cost the client declares (header:NAME or query:NAME), but cost is '"
                + config.get(LimiterKeys.COST) + "' (from " + config.source(LimiterKeys.COST)
                + ")");
      }
      return config;
    }
  }
}
