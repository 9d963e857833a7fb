package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.rate.Algorithm;
import dev.sluice.request.Scope;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executor;

/**
 * The limiters and rate rules of a door that runs them locally (the servlet filter, the gRPC
 * interceptor), built from resolved settings: one {@link PathLimiter} per declared limiter, in
 * declaration order, and the rules of {@code sluice.rules.file} (or those given in code). What such
 * a door cannot do is refused here, naming the key, its value and where it came from: a limiter
 * without a {@code path}, {@code scope=global}, a {@code cost} other than 1, a rule of global scope
 * and a shaper rule. With {@code sluice.enabled=false} nothing is built.
 *
 * <pre>{@code
 * LocalDoor door = LocalDoor.build(settings, properties, null, LocalDoor.Words.SERVLET_FILTER,
 *     NanoClock.system(), Scheduler.system(), executor);
 * PathLimiter guard = PathLimiter.first(door.limiters(), "/api/work");
 * }</pre>
 */
public final class LocalDoor {

  /**
   * How a door's refusals name it and what it guards.
   *
   * @param door the door, as a sentence names it ({@code "the servlet filter"})
   * @param unit what it admits ({@code "request"}, {@code "call"})
   * @param guarded what a limiter of the door guards, with an example
   */
  public record Words(String door, String unit, String guarded) {
    /** The servlet filter's words. */
    public static final Words SERVLET_FILTER =
        new Words("the servlet filter", "request", "request paths it guards, e.g. /api/*");

    /** The gRPC interceptor's words. */
    public static final Words GRPC_INTERCEPTOR = new Words(
        "the gRPC interceptor",
        "call",
        "methods it guards: /package.Service/Method or /package.Service/*");

    /** Checks that every word is there. */
    public Words {
      Objects.requireNonNull(door, "door");
      Objects.requireNonNull(unit, "unit");
      Objects.requireNonNull(guarded, "guarded");
    }
  }

  private final List<PathLimiter> limiters;
  private final RateRules rules;

  private LocalDoor(List<PathLimiter> limiters, RateRules rules) {
    this.limiters = List.copyOf(limiters);
    this.rules = rules;
  }

  /**
   * Builds the limiters and rules of {@code settings}.
   *
   * @param properties where {@code settings} came from (for the rules file's source)
   * @param codeRules rules declared in code, or null; a {@code sluice.rules.file} wins
   * @param runOn where the limiters complete their waiters
   * @throws SluiceConfigException at the first setting the door does not support, or a bad rules
   *     file
   */
  public static LocalDoor build(
      SluiceSettings settings,
      SluiceProperties properties,
      RuleSet codeRules,
      Words words,
      NanoClock clock,
      Scheduler scheduler,
      Executor runOn) {
    return build(settings, properties, codeRules, words, clock, scheduler, runOn, null, null);
  }

  /**
   * Builds the limiters and rules of {@code settings}, telling {@code limiterListener} what every
   * limiter decides and {@code ruleListener} what every rule decides (the door's status and
   * metrics count from them).
   *
   * @param limiterListener hears every limiter's decisions, or null
   * @param ruleListener hears every rule's decisions, or null
   * @throws SluiceConfigException at the first setting the door does not support, or a bad rules
   *     file
   * @see #build(SluiceSettings, SluiceProperties, RuleSet, Words, NanoClock, Scheduler, Executor)
   */
  public static LocalDoor build(
      SluiceSettings settings,
      SluiceProperties properties,
      RuleSet codeRules,
      Words words,
      NanoClock clock,
      Scheduler scheduler,
      Executor runOn,
      ConcurrencyListener limiterListener,
      RateListener ruleListener) {
    if (!settings.enabled()) {
      return new LocalDoor(List.of(), null);
    }
    List<PathLimiter> built = new ArrayList<>();
    for (LimiterConfig c : settings.limiters().values()) {
      built.add(new PathLimiter(c, limiter(c, words, clock, scheduler, runOn, limiterListener)));
    }
    return new LocalDoor(built, rules(settings, properties, codeRules, words, clock, ruleListener));
  }

  /** The limiters, in declaration order (see {@link PathLimiter#first}). */
  public List<PathLimiter> limiters() {
    return limiters;
  }

  /** The rate rules in force, or null when none is declared. */
  public RateRules rules() {
    return rules;
  }

  private static ConcurrencyLimiter limiter(
      LimiterConfig c,
      Words words,
      NanoClock clock,
      Scheduler scheduler,
      Executor runOn,
      ConcurrencyListener listener) {
    if (c.path().isEmpty()) {
      throw new SluiceConfigException(
          c.property(LimiterKeys.PATH),
          null,
          c.source(LimiterKeys.PATH),
          "a limiter of " + words.door() + " needs the " + words.guarded());
    }
    if (c.scope() == Scope.GLOBAL) {
      throw new SluiceConfigException(
          c.property(LimiterKeys.SCOPE),
          "global",
          c.source(LimiterKeys.SCOPE),
          words.door() + " runs local limiters only; use scope=local");
    }
    if (!"1".equals(c.cost().trim())) {
      throw new SluiceConfigException(
          c.property(LimiterKeys.COST),
          c.cost(),
          c.source(LimiterKeys.COST),
          words.door() + " counts every " + words.unit() + " as 1; use cost=1");
    }
    ConcurrencyLimiter.Builder builder = ConcurrencyLimiter.builder(c.name())
        .spec(c.spec())
        .clock(clock)
        .scheduler(scheduler)
        .executor(runOn);
    if (listener != null) {
      builder.listener(listener);
    }
    return builder.build();
  }

  private static RateRules rules(
      SluiceSettings settings,
      SluiceProperties properties,
      RuleSet codeRules,
      Words words,
      NanoClock clock,
      RateListener listener) {
    String key = SluiceKeys.RULES_FILE.name();
    String source = properties.source(key).orElse(null);
    RuleSet ruleSet = settings
        .rulesFile()
        .map(file -> RulesSource.load(file, properties.file(), source))
        .orElse(codeRules);
    if (ruleSet == null) {
      return null;
    }
    String where = settings.rulesFile().map(Path::toString).orElse("rules(..)");
    String from = settings.rulesFile().isPresent() ? source : LimiterConfig.CODE;
    for (Rule rule : ruleSet.rules()) {
      if (rule.scope() == Scope.GLOBAL) {
        throw new SluiceConfigException(
            key,
            where,
            from,
            "rule '" + rule.id() + "' has scope global; " + words.door()
                + " counts rules locally only");
      }
      if (rule.algorithm() == Algorithm.LEAKY_BUCKET_SHAPER) {
        throw new SluiceConfigException(
            key,
            where,
            from,
            "rule '" + rule.id() + "' is a shaper (leaky-bucket-shaper); " + words.door()
                + " rejects or admits, it does not hold " + words.unit() + "s back:"
                + " use leaky-bucket");
      }
    }
    return RateRules.builder()
        .rules(ruleSet)
        .clock(clock)
        .maxKeysPerRule(settings.get(SluiceKeys.RULES_MAX_KEYS))
        .listener(listener) // null: none
        .build();
  }
}
