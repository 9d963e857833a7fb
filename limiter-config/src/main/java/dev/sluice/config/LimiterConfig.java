package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One named concurrency limiter's settings: the core's {@link LimiterSpec} and what a door reads per
 * request (path, scope, queue key, cost, deadline header). Immutable, checked when set. Code and
 * properties fill the same {@link Builder}: a door hands the code's lambda a builder, then the
 * properties {@code sluice.limiters.<name>.*} are parsed onto it, each through its key's setter
 * ({@link LimiterKeys}), with the same checks and the same defaults, those of {@link
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

  private final String name;
  private final Builder values; // a private copy, never handed out: read by the accessors
  private final LimiterSpec spec;
  private final QueueSettings queue;
  private final Map<String, String> sources;

  private LimiterConfig(Builder b, LimiterSpec spec, QueueSettings queue) {
    this.name = b.name;
    this.values = b.copy();
    this.spec = spec;
    this.queue = queue;
    this.sources = Collections.unmodifiableMap(new LinkedHashMap<>(b.sources));
  }

  /** A builder starting from the defaults. */
  public static Builder custom(String name) {
    return new Builder(name);
  }

  /** A builder starting from {@code base} (same name, every value copied). */
  public static Builder from(LimiterConfig base) {
    return base.values.copy();
  }

  /** A limiter with every default and no path. */
  public static LimiterConfig ofDefaults(String name) {
    return custom(name).build();
  }

  /** The limiter's name. */
  public String name() {
    return name;
  }

  /** The core limiter's spec: limits, queue, timeouts, the limit's strategy. */
  public LimiterSpec spec() {
    return spec;
  }

  /** The path pattern it guards; empty: only wrapped handlers use it. */
  public Optional<String> path() {
    return Optional.ofNullable(values.path);
  }

  /** Permits (the ceiling of an adaptive limit). */
  public int maxConcurrency() {
    return spec.maxConcurrency();
  }

  /** Waiting slots. */
  public int maxQueue() {
    return spec.maxQueue();
  }

  /** Longest wait in the queue. */
  public Duration queueTimeout() {
    return spec.queueTimeout();
  }

  /** Local (this node) or global (leases in the shared store). */
  public Scope scope() {
    return values.scope;
  }

  /** The queue discipline, and who a request queues as. */
  public QueueSettings queue() {
    return queue;
  }

  /** {@code queue-key} as set, also when a FIFO queue ignores it. */
  public String queueKey() {
    return values.queueKey;
  }

  /** {@code max-queue-per-key} as set, also when a FIFO queue ignores it. */
  public int maxQueuePerKey() {
    return values.maxQueuePerKey;
  }

  /** {@code cost}: a number, {@code header:NAME}, {@code query:NAME} or {@code learned}. */
  public String cost() {
    return values.cost;
  }

  /** {@code cost-scale}: a declared cost's units per unit of the limit. */
  public int costScale() {
    return values.costScale;
  }

  /** The header carrying the client's deadline, or empty. */
  public Optional<String> deadlineHeader() {
    return Optional.ofNullable(values.deadlineHeader);
  }

  /** Whether the key was set (in code or properties) rather than defaulted. */
  public boolean isSet(LimiterKey<?> key) {
    return sources.containsKey(key.name());
  }

  /** Where the key's value came from: {@code code}, a file, an environment variable, ...; "default". */
  public String source(LimiterKey<?> key) {
    return sources.getOrDefault(key.name(), "default");
  }

  /** The full property name of one of this limiter's keys. */
  public String property(LimiterKey<?> key) {
    return property(name, key);
  }

  /** The full property name of {@code limiter}'s {@code key}. */
  public static String property(String limiter, LimiterKey<?> key) {
    return SluiceProperties.LIMITERS + limiter + "." + key.name();
  }

  /**
   * What changed from {@code old} that a running limiter keeps until a restart ({@code path} and
   * {@code scope}: they choose where and which limiter), one line each, e.g. {@code "path changed
   * (/a -> /b)"}.
   */
  public List<String> restartChanges(LimiterConfig old) {
    List<String> out = new ArrayList<>();
    if (!Objects.equals(old.values.path, values.path)) {
      out.add(LimiterKeys.PATH + " changed (" + old.values.path + " -> " + values.path + ")");
    }
    if (old.values.scope != values.scope) {
      out.add(LimiterKeys.SCOPE + " changed (" + old.values.scope + " -> " + values.scope + ")");
    }
    return out;
  }

  /** These settings with {@code running}'s path and scope (and their sources), which wait for a restart. */
  public LimiterConfig keepingPlaceOf(LimiterConfig running) {
    Builder b = values.copy();
    b.path = running.values.path;
    b.scope = running.values.scope;
    for (LimiterKey<?> key : List.of(LimiterKeys.PATH, LimiterKeys.SCOPE)) {
      if (running.isSet(key)) {
        b.sources.put(key.name(), running.source(key));
      } else {
        b.sources.remove(key.name());
      }
    }
    return b.build();
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof LimiterConfig other
        && name.equals(other.name)
        && spec.equals(other.spec)
        && values.sameDoorSettings(other.values);
  }

  @Override
  public int hashCode() {
    return Objects.hash(name, spec, values.path, values.scope, values.cost);
  }

  @Override
  public String toString() {
    return "LimiterConfig[" + name + ", path=" + values.path + ", scope=" + values.scope.id()
        + ", cost=" + values.cost + (values.costScale == 1 ? "" : "/" + values.costScale)
        + (values.deadlineHeader == null ? "" : ", deadline-header=" + values.deadlineHeader)
        + ", " + spec + "]";
  }

  /**
   * Builds a {@link LimiterConfig}. Every setter checks its value at once and throws {@link
   * SluiceConfigException} naming the property, e.g. {@code sluice.limiters.transcode.max-queue='-1'
   * (from code): must be >= 0}. The keys of {@link LimiterKeys} set its fields (package-private
   * for them): the spec's through {@link #spec}, the others here.
   */
  public static final class Builder {

    private final String name;
    final Map<String, String> sources = new LinkedHashMap<>();
    LimiterSpec.Builder spec = LimiterSpec.custom();
    // the keys that make the LimitSpec together
    LimiterKeys.LimitKind limit = LimiterKeys.LimitKind.FIXED;
    double targetCpu = CpuLimit.DEFAULT_TARGET_CPU;
    LimiterKeys.CpuSource cpuSource = LimiterKeys.CpuSource.MACHINE;
    int minConcurrency = 1;
    // the keys that make the QueueSpec and the per-request Caller together
    LimiterKeys.QueueKind queue = LimiterKeys.QueueKind.FIFO;
    String queueKey = QueueSettings.DEFAULT_KEY;
    int maxQueuePerKey;
    String priorityHeader;
    // what the door reads: where and which limiter, and per request
    String path;
    Scope scope = Scope.LOCAL;
    String cost = "1";
    int costScale = 1;
    String deadlineHeader;
    private CpuSignals cpu = CpuSignals.JVM;

    private Builder(String name) {
      if (name == null || name.isBlank() || name.contains(".")) {
        throw new IllegalArgumentException(
            "limiter name must not be blank nor contain '.' but was '" + name + "'");
      }
      this.name = name;
    }

    /**
     * The path pattern this limiter guards: an exact path, {@code /prefix/*} (one segment) or
     * {@code /prefix/**} (any depth). Without a path the limiter is used only by handlers a door
     * wraps in it by name.
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

    /** Sets any key from code, checked as a property would be. */
    public <T> Builder set(LimiterKey<T> key, T value) {
      String property = property(name, key);
      key.set(this, key.check(property, value), property, CODE);
      sources.put(key.name(), CODE);
      return this;
    }

    /**
     * Parses a property's text onto this builder, through the key's setter.
     *
     * @param source where the text came from, named in an error
     */
    public <T> Builder parse(LimiterKey<T> key, String raw, String source) {
      String property = property(name, key);
      key.set(this, key.parse(property, raw, source), property, source);
      sources.put(key.name(), source);
      return this;
    }

    /** The CPU signals behind {@code cpu-source=machine} and {@code process}. */
    Builder cpu(CpuSignals signals) {
      this.cpu = Objects.requireNonNull(signals, "signals");
      return this;
    }

    /** An independent builder with the same values (properties are parsed onto a copy). */
    public Builder copy() {
      Builder b = new Builder(name);
      b.sources.putAll(sources);
      b.spec = LimiterSpec.from(spec.build());
      b.limit = limit;
      b.targetCpu = targetCpu;
      b.cpuSource = cpuSource;
      b.minConcurrency = minConcurrency;
      b.queue = queue;
      b.queueKey = queueKey;
      b.maxQueuePerKey = maxQueuePerKey;
      b.priorityHeader = priorityHeader;
      b.path = path;
      b.scope = scope;
      b.cost = cost;
      b.costScale = costScale;
      b.deadlineHeader = deadlineHeader;
      b.cpu = cpu;
      return b;
    }

    private boolean sameDoorSettings(Builder o) {
      return Objects.equals(path, o.path)
          && scope == o.scope
          && queueKey.equals(o.queueKey)
          && cost.equals(o.cost)
          && costScale == o.costScale
          && Objects.equals(deadlineHeader, o.deadlineHeader)
          && Objects.equals(priorityHeader, o.priorityHeader);
    }

    /**
     * The config.
     *
     * @throws SluiceConfigException when values contradict each other
     */
    public LimiterConfig build() {
      int max = spec.build().maxConcurrency();
      if (minConcurrency > max) {
        throw new SluiceConfigException(
            property(name, LimiterKeys.MIN_CONCURRENCY),
            Integer.toString(minConcurrency),
            source(LimiterKeys.MIN_CONCURRENCY),
            "must be <= max-concurrency (" + max + ", from " + source(LimiterKeys.MAX_CONCURRENCY)
                + ")");
      }
      if (costScale != 1 && !LimiterKeys.declaredCost(cost)) {
        throw new SluiceConfigException(
            property(name, LimiterKeys.COST_SCALE),
            Integer.toString(costScale),
            source(LimiterKeys.COST_SCALE),
            "applies to a cost the client declares (header:NAME or query:NAME), but cost is '"
                + cost + "' (from " + source(LimiterKeys.COST) + ")");
      }
      QueueSettings queueSettings = QueueSettings.of(
          queue == LimiterKeys.QueueKind.FAIR, queueKey, maxQueuePerKey, priorityHeader);
      LimitSpec limitSpec = switch (limit) {
        case CPU ->
          LimitSpec.cpu(
              targetCpu,
              cpuSource == LimiterKeys.CpuSource.PROCESS ? cpu.process() : cpu.machine(),
              minConcurrency);
        case LATENCY -> LimitSpec.latency(minConcurrency);
        case FIXED -> LimitSpec.fixed();
      };
      LimiterSpec built = LimiterSpec.from(spec.build())
          .limit(limitSpec)
          .queue(queueSettings.spec())
          .build();
      return new LimiterConfig(this, built, queueSettings);
    }

    private String source(LimiterKey<?> key) {
      return sources.getOrDefault(key.name(), "default");
    }
  }
}
