package dev.sluice.javalin;

import dev.sluice.config.RulesSource;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFileException;
import dev.sluice.rules.RulesReloader;
import dev.sluice.time.Scheduler;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The reloads: the rules file through {@link RulesReloader}, and the properties file (new limits),
 * when {@code sluice.reload-interval} is set or {@link #reload()} is called. It keeps the
 * properties in force: a reload reads them again, resolves them with limiter-config, and hands the
 * limiters the result ({@link Limiters#apply}). Both poll on the plugin's {@link Scheduler}, so
 * tests drive them in virtual time.
 */
final class Reloads implements AutoCloseable {

  private final Settings settings;
  private final RateRules rules;
  private final Function<SluiceProperties, Settings> resolve;
  private final Limiters limiters;
  private volatile SluiceProperties properties; // those in force
  private final WarnOnce failures;
  private final Warnings warnings;
  private final Scheduler scheduler;
  private RulesReloader rulesReloader;
  private Scheduler.Cancellable propertiesPoll;
  private boolean closed;
  // confined to the polls, which run one after another (each schedules the next when it ends)
  private Map<String, String> refused; // the values of the version last refused: warned once
  private String unreadable; // why the file could not be read last time: warned once
  private Scheduler.Cancellable rulesCheck;
  private volatile RuleSet checkedRules; // the rules last checked against the routes

  /**
   * @param settings the settings the plugin started with
   * @param rules the rate rules engine, or null without rules
   * @param properties the properties the plugin started with
   * @param resolve parses and checks properties read again (limiter-config), as at start-up
   * @param limiters where new limits go
   */
  Reloads(
      Settings settings,
      RateRules rules,
      SluiceProperties properties,
      Function<SluiceProperties, Settings> resolve,
      Limiters limiters,
      WarnOnce failures,
      Warnings warnings,
      Scheduler scheduler) {
    this.scheduler = scheduler;
    this.settings = settings;
    this.rules = rules;
    this.properties = properties;
    this.resolve = resolve;
    this.limiters = limiters;
    this.failures = failures;
    this.warnings = warnings;
  }

  /**
   * @param routes the start-up route check, or null when it did not run: a rule set reloaded later
   *     (a changed file, the remote URL's first answer) is checked against the same routes
   */
  synchronized void start(RouteCheck routes) {
    Optional<Path> rulesFile =
        settings.rulesFile().flatMap(f -> RulesSource.resolve(f, properties.file()));
    boolean reloadable = rulesFile.isPresent() || settings.rulesRemote().isPresent();
    if (rules != null && reloadable && !settings.rulesReloadInterval().isZero()) {
      RulesReloader.Builder builder = RulesReloader.builder()
          .interval(settings.rulesReloadInterval())
          .target(rules)
          .scheduler(scheduler) // the plugin's: tests drive the polls in virtual time
          // called once per bad version; the message names the file (or URL), line and field. The
          // reloader's own line goes to System.Logger, which an SLF4J application may not route
          .onError(e -> warnings.warn(
              "rules not reloaded",
              "Sluice rules not reloaded, the rules in force stay: " + e.getMessage()));
      rulesFile.ifPresent(builder::file);
      settings.rulesRemote().ifPresent(builder::remote);
      rulesReloader = builder.build();
      checkedRules = rules.rules(); // checked at start-up
      try {
        rulesReloader.start();
      } catch (RulesFileException e) {
        // the file parsed at start-up; it changed since: keep the rules in force
        failures.warn(
            "rules file changed into an invalid version; previous rules stay: " + e.getMessage(),
            null);
      }
      if (routes != null && routes.skipped().isEmpty()) {
        rulesCheck =
            scheduler.every(settings.rulesReloadInterval().toNanos(), () -> checkRules(routes));
      }
    }
    if (!settings.reloadInterval().isZero() && properties.file().isPresent()) {
      schedulePropertiesPoll();
    }
  }

  /**
   * Warns about each rule of a newly reloaded set that reaches no route. The reload applies all the
   * same: the set was valid, a running service keeps the rules its operator published rather than
   * the ones before, and only start-up (strict) refuses.
   */
  private void checkRules(RouteCheck routes) {
    RuleSet inForce = rules.rules();
    if (inForce.equals(checkedRules)) {
      return;
    }
    checkedRules = inForce;
    for (Rule rule : inForce.rules()) {
      routes
          .ruleProblem(rule)
          .ifPresent(problem -> warnings.warn(
              "reloaded " + problem,
              "Sluice rules reloaded with a rule that reaches no route; in force all the same: "
                  + problem));
    }
  }

  private synchronized void schedulePropertiesPoll() {
    if (!closed) {
      propertiesPoll = scheduler.every(settings.reloadInterval().toNanos(), this::pollProperties);
    }
  }

  /**
   * Reads the properties again and applies them when their values changed. The values are compared,
   * not the file's modification time: a file-system clock ticks coarsely (a rewrite of the same size
   * within one tick looks unchanged), and a touched file with the same values needs nothing.
   */
  private void pollProperties() {
    SluiceProperties current = properties;
    SluiceProperties next;
    try {
      next = current.reload();
    } catch (RuntimeException e) {
      String why = String.valueOf(e.getMessage());
      if (!why.equals(unreadable)) {
        unreadable = why;
        warnings.warn(
            "properties not read", "Sluice properties not reloaded, previous limits stay: " + why);
      }
      return;
    }
    unreadable = null;
    if (next.asMap().equals(current.asMap()) || next.asMap().equals(refused)) {
      return;
    }
    try {
      apply(next);
      refused = null;
    } catch (RuntimeException e) {
      // a SluiceConfigException names key, value and where it came from (the file)
      refused = next.asMap();
      warnings.warn(
          "properties refused",
          "Reloaded Sluice properties rejected, previous limits stay: " + e.getMessage());
    }
  }

  /** The properties in force: those at start, as changed by reloads. */
  SluiceProperties properties() {
    return properties;
  }

  /**
   * Re-reads the properties file and applies the changes at once.
   *
   * @throws SluiceConfigException when a value is wrong; the previous limits stay in force
   */
  void reload() {
    apply(properties.reload());
  }

  /** Resolves {@code next} (every key checked) and hands the limiters the result. */
  private synchronized void apply(SluiceProperties next) {
    Settings resolved = resolve.apply(next);
    limiters.apply(resolved.limiters(), warnings);
    properties = next;
  }

  @Override
  public synchronized void close() {
    if (rulesReloader != null) {
      rulesReloader.close();
    }
    closed = true;
    if (propertiesPoll != null) {
      propertiesPoll.cancel();
    }
    if (rulesCheck != null) {
      rulesCheck.cancel();
    }
  }
}
