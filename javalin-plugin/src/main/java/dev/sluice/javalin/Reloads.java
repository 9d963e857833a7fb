package dev.sluice.javalin;

import dev.sluice.config.PropertiesReload;
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
  private final PropertiesReload<Settings> propertiesReload;
  private final Limiters limiters;
  private final WarnOnce failures;
  private final Warnings warnings;
  private final Scheduler scheduler;
  private RulesReloader rulesReloader;
  private Scheduler.Cancellable propertiesPoll;
  private boolean closed;
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
    this.propertiesReload = new PropertiesReload<>(properties, resolve);
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
        settings.rulesFile().flatMap(f -> RulesSource.resolve(f, properties().file()));
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
    if (!settings.reloadInterval().isZero() && properties().file().isPresent()) {
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

  /** Reads the properties again and applies them when their values changed (limiter-config). */
  private void pollProperties() {
    PropertiesReload.Outcome outcome = propertiesReload.poll();
    if (outcome instanceof PropertiesReload.Unreadable u) {
      warnings.warn(
          "properties not read",
          "Sluice properties not reloaded, previous limits stay: " + u.reason());
    } else if (outcome instanceof PropertiesReload.Refused r) {
      refused(r.reason());
    } else if (outcome instanceof PropertiesReload.Changed<?> c) {
      @SuppressWarnings("unchecked") // the reload resolves into Settings
      PropertiesReload.Changed<Settings> change = (PropertiesReload.Changed<Settings>) c;
      try {
        apply(change);
      } catch (RuntimeException e) {
        propertiesReload.failed(change);
        refused(String.valueOf(e.getMessage()));
      }
    }
  }

  /** A reloaded version with a wrong value: the message names key, value and where from. */
  private void refused(String why) {
    warnings.warn(
        "properties refused", "Reloaded Sluice properties rejected, previous limits stay: " + why);
  }

  /** The properties in force: those at start, as changed by reloads. */
  SluiceProperties properties() {
    return propertiesReload.inForce();
  }

  /**
   * Re-reads the properties file and applies the changes at once.
   *
   * @throws SluiceConfigException when a value is wrong; the previous limits stay in force
   */
  void reload() {
    apply(propertiesReload.read());
  }

  /** Hands the limiters the resolved settings (every key checked), then marks them in force. */
  private synchronized void apply(PropertiesReload.Changed<Settings> change) {
    limiters.apply(change.settings().limiters(), warnings);
    propertiesReload.applied(change);
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
