package dev.sluice.javalin;

import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.CpuSignals;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.SluiceProperties;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the {@code new SluicePlugin(cfg -> ...)} lambda configures. Most settings come from
 * {@link SluiceProperties} (file, environment, {@code -D}); the setters here are for what only code
 * can give (a meter registry, an executor, custom actors) and for code-level defaults of limiters.
 * Without {@link #properties}, the real environment and system properties are read.
 */
public final class SluiceConfig {

  private SluiceProperties properties;
  private final Map<String, LimiterConfig.Builder> limiters = new LinkedHashMap<>();
  private final List<MeterRegistry> registries = new ArrayList<>();
  private final Map<String, Function<RequestInfo, Optional<String>>> customActors =
      new LinkedHashMap<>();
  private Executor executor;
  private NanoClock clock = NanoClock.system();
  private CpuSignals cpu = CpuSignals.JVM;
  private Scheduler scheduler = Scheduler.system();
  private RuleSet rules;

  /** The properties to read (default: {@link SluiceProperties#fromEnvironment()}). */
  public SluiceConfig properties(SluiceProperties properties) {
    this.properties = Objects.requireNonNull(properties, "properties");
    return this;
  }

  /**
   * Declares (or refines) a named concurrency limiter: {@code l -> l.path("/api/x").maxConcurrency(2)}.
   * Properties {@code sluice.limiters.<name>.*} are parsed onto the same builder afterwards and win.
   * A limiter needs a path or a handler wrapped with {@link SluicePlugin#limited}; start-up fails
   * otherwise.
   */
  public SluiceConfig limiter(String name, Consumer<LimiterConfig.Builder> limiter) {
    limiter.accept(limiters.computeIfAbsent(name, LimiterConfig::custom));
    return this;
  }

  /** Declares a limiter from a finished config (replacing one of the same name). */
  public SluiceConfig limiter(LimiterConfig limiter) {
    limiters.put(limiter.name(), LimiterConfig.from(limiter));
    return this;
  }

  /** Binds {@link SluiceMeterBinder} to this registry when the plugin starts. */
  public SluiceConfig meterRegistry(MeterRegistry registry) {
    registries.add(Objects.requireNonNull(registry, "registry"));
    return this;
  }

  /**
   * Where queued requests resume when they get a permit. Default: Jetty's own thread pool, so a
   * woken request runs like any other request. Never the releasing request's thread: that would run
   * the next endpoint before the previous response is written.
   */
  public SluiceConfig executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return this;
  }

  /** Rate rules given in code, used when {@code sluice.rules.file} is not set. */
  public SluiceConfig rules(RuleSet rules) {
    this.rules = Objects.requireNonNull(rules, "rules");
    return this;
  }

  /** An actor for rules with {@code actor: <name>} that the rules engine does not know. */
  public SluiceConfig customActor(String name, Function<RequestInfo, Optional<String>> keyOf) {
    customActors.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(keyOf, "keyOf"));
    return this;
  }

  /** The clock of every limiter and rule (tests inject a virtual one). */
  public SluiceConfig clock(NanoClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /**
   * The CPU that {@code limit=cpu} limiters hold at target and the live page shows, in place of
   * the JVM's own machine and process signals: a simulated machine, for tests and demos.
   */
  public SluiceConfig cpuSignal(CpuSignal signal) {
    Objects.requireNonNull(signal, "signal");
    this.cpu = new CpuSignals(signal, signal);
    return this;
  }

  /** A machine and a process signal of their own (tests: a busy neighbour beside the service). */
  SluiceConfig cpuSignals(CpuSignal machine, CpuSignal process) {
    this.cpu = new CpuSignals(
        Objects.requireNonNull(machine, "machine"), Objects.requireNonNull(process, "process"));
    return this;
  }

  CpuSignals cpu() {
    return cpu;
  }

  /** The scheduler of queue timeouts and rules-file polls (tests inject a virtual one). */
  public SluiceConfig scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return this;
  }

  SluiceProperties propertiesOrDefault() {
    if (properties == null) {
      properties = SluiceProperties.fromEnvironment();
    }
    return properties;
  }

  /** Copies of the code's limiter builders, in declaration order, for properties to refine. */
  Map<String, LimiterConfig.Builder> limiters() {
    Map<String, LimiterConfig.Builder> copies = new LinkedHashMap<>();
    limiters.forEach((name, b) -> copies.put(name, b.copy()));
    return copies;
  }

  List<MeterRegistry> registries() {
    return registries;
  }

  Map<String, Function<RequestInfo, Optional<String>>> customActors() {
    return customActors;
  }

  Executor executorOrNull() {
    return executor;
  }

  NanoClock clock() {
    return clock;
  }

  Scheduler scheduler() {
    return scheduler;
  }

  RuleSet rulesOrNull() {
    return rules;
  }
}
