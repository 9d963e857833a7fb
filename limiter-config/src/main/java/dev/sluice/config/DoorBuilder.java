package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;

/**
 * What the builder of every door that limits locally (the servlet filter, the gRPC interceptor)
 * sets, and how it starts building: the properties, limiters and rules declared in code, the
 * executor, clock, scheduler and CPU signals. Properties win over code for the same limiter, as in
 * the Javalin plugin.
 *
 * <pre>{@code
 * SluiceFilter filter = SluiceFilter.builder()
 *     .properties(SluiceProperties.load(Path.of("sluice.properties")))
 *     .limiter("api", l -> l.path("/api/*").maxConcurrency(4))
 *     .build();
 * }</pre>
 *
 * @param <B> the door's own builder, which every setter returns
 */
public abstract class DoorBuilder<B extends DoorBuilder<B>> {

  private SluiceProperties properties;
  private final Map<String, LimiterConfig.Builder> code = new LinkedHashMap<>();
  private Executor executor;
  private NanoClock clock = NanoClock.system();
  private Scheduler scheduler = Scheduler.system();
  private CpuSignals cpu = CpuSignals.JVM;
  private RuleSet rules; // null: sluice.rules.file, if set

  /** For a door's own builder. */
  protected DoorBuilder() {}

  /** This builder, as the door's own type. */
  protected abstract B self();

  /** The properties to read (default: {@link SluiceProperties#fromEnvironment()}). */
  public B properties(SluiceProperties properties) {
    this.properties = Objects.requireNonNull(properties, "properties");
    return self();
  }

  /**
   * Declares (or refines) a named limiter: {@code l -> l.path("/api/*").maxConcurrency(4)}.
   * Properties {@code sluice.limiters.<name>.*} are parsed onto the same builder afterwards and
   * win.
   */
  public B limiter(String name, Consumer<LimiterConfig.Builder> limiter) {
    limiter.accept(code.computeIfAbsent(name, LimiterConfig::custom));
    return self();
  }

  /**
   * Rate rules declared in code (a {@code sluice.rules.file} wins). A rule's {@code resource} is
   * matched against the path the door limits: a request's path within the application, or a gRPC
   * method's {@code /package.Service/Method} (every gRPC call is a {@code POST}).
   */
  public B rules(RuleSet rules) {
    this.rules = Objects.requireNonNull(rules, "rules");
    return self();
  }

  /**
   * Where the limiters complete their waiters and the door resumes a request that waited (default:
   * a cached pool of daemon threads that the door stops when it is closed or destroyed).
   */
  public B executor(Executor executor) {
    this.executor = Objects.requireNonNull(executor, "executor");
    return self();
  }

  /** The limiters' and rules' clock (tests: a virtual one). */
  public B clock(NanoClock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return self();
  }

  /** Runs the limiters' timeouts (tests: a virtual one). */
  public B scheduler(Scheduler scheduler) {
    this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    return self();
  }

  /** The CPU signals behind {@code limit=cpu} (default: the JVM's). */
  public B cpuSignals(CpuSignals cpu) {
    this.cpu = Objects.requireNonNull(cpu, "cpu");
    return self();
  }

  /** The clock set (or the system's), for what the door builds beside its limiters. */
  protected final NanoClock clockInUse() {
    return clock;
  }

  /** The scheduler set (or the system's), for what the door builds beside its limiters. */
  protected final Scheduler schedulerInUse() {
    return scheduler;
  }

  /** The CPU signals set (or the JVM's), for what the door builds beside its limiters. */
  protected final CpuSignals cpuSignalsInUse() {
    return cpu;
  }

  /** Declares a limiter from a finished config (replacing one of the same name). */
  protected final void declare(LimiterConfig limiter) {
    code.put(limiter.name(), LimiterConfig.from(limiter));
  }

  /**
   * The door's parts: resolves and checks every setting (unknown keys after bad values, as the
   * plugin checks them), makes the executor when none was given and the door has limiters of its
   * own to run on it, and builds the limiters and rules.
   *
   * @param threads the name of the threads of an executor made here, numbered from 1
   * @throws SluiceConfigException naming key, value and source, at the first bad value or at a
   *     setting the door does not support
   */
  protected final Parts parts(LocalDoor.Words words, String threads) {
    return parts(words, threads, null, null);
  }

  /**
   * {@link #parts(LocalDoor.Words, String)}, with listeners that hear every decision of the
   * limiters and the rules (the door's status and meters count from them).
   *
   * @param limiterListener hears every limiter's decisions, or null
   * @param ruleListener hears every rule's decisions, or null
   */
  protected final Parts parts(
      LocalDoor.Words words,
      String threads,
      ConcurrencyListener limiterListener,
      RateListener ruleListener) {
    SluiceProperties p = properties != null ? properties : SluiceProperties.fromEnvironment();
    SluiceSettings settings = SluiceSettings.resolve(p, code, cpu);
    UnknownKeys.check(
        p, settings.limiters().keySet(), settings.strict(), ConfigWarnings.systemLogger());
    // the executor completes the waiters of the door's own limiters; a door without one (a gRPC
    // door on shared limiters only, which their owner runs, or a disabled door) needs none
    boolean ownLimiters = settings.enabled() && !settings.limiters().isEmpty();
    ExecutorService own =
        executor == null && ownLimiters ? Executors.newCachedThreadPool(daemons(threads)) : null;
    Executor runOn = own != null ? own : executor;
    LocalDoor door;
    try {
      door = LocalDoor.build(
          settings, p, rules, words, clock, scheduler, runOn, limiterListener, ruleListener);
    } catch (RuntimeException e) {
      if (own != null) {
        own.shutdown();
      }
      throw e;
    }
    return new Parts(p, settings, door, own);
  }

  /**
   * What a door is built from.
   *
   * @param properties the properties read
   * @param settings what they resolved to, with the code's limiters
   * @param door the limiters and rules
   * @param ownExecutor the executor made for the door, which the door stops; null when one was
   *     given, or when the door builds no limiter (disabled, or none declared)
   */
  public record Parts(
      SluiceProperties properties,
      SluiceSettings settings,
      LocalDoor door,
      ExecutorService ownExecutor) {}

  private static ThreadFactory daemons(String name) {
    AtomicInteger n = new AtomicInteger();
    return task -> {
      Thread t = new Thread(task, name + "-" + n.incrementAndGet());
      t.setDaemon(true);
      return t;
    };
  }
}
