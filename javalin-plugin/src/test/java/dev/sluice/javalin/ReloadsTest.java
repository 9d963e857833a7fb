package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.CpuSignals;
import dev.sluice.config.RulesSource;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reloads without a server: the properties file polled and read again on demand, the rules file
 * polled, each reloaded rule set checked against the routes, and what closing stops. The polls run
 * on a virtual scheduler, so each happens exactly when time is advanced.
 */
class ReloadsTest {

  private static final Duration INTERVAL = Duration.ofSeconds(5);
  private static final String MAX = "sluice.limiters.work.max-concurrency";
  private static final RouteCheck HISTORY_ROUTE =
      new RouteCheck(List.of(new RouteCheck.Route("GET", "/api/history/{id}")), false, false);

  @TempDir
  Path dir;

  private final VirtualTime time = new VirtualTime();

  @RegisterExtension
  final LogCapture log = new LogCapture(ReloadsTest.class);

  private final Warnings warnings = Warnings.to(log.logger());
  private Limiters limiters;
  private RateRules rules;
  private Reloads reloads;

  @AfterEach
  void stop() {
    if (reloads != null) {
      reloads.close();
    }
    if (limiters != null) {
      limiters.shutdown();
    }
  }

  private Path properties(String... lines) throws IOException {
    Path file = dir.resolve("sluice.properties");
    Files.writeString(file, String.join("\n", lines) + "\n");
    return file;
  }

  private static String[] work(String reloadInterval, String max) {
    return new String[] {
      "sluice.reload-interval=" + reloadInterval,
      "sluice.limiters.work.path=/api/work",
      MAX + "=" + max
    };
  }

  /** Builds the parts the plugin builds at start-up, from the file's properties. */
  private Reloads reloads(Path file) {
    SluiceProperties props =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    Function<SluiceProperties, Settings> resolve =
        p -> Settings.resolveChecked(p, Map.of(), CpuSignals.JVM, warnings);
    Settings settings = resolve.apply(props);
    RateRules fromFile = settings
        .rulesFile()
        .map(f -> RateRules.builder()
            .rules(RulesSource.load(f, props.file(), null))
            .clock(time)
            .build())
        .orElse(null);
    return reloadsOf(props, resolve, settings, fromFile);
  }

  /** The limiters of {@code settings} and a {@code Reloads} over them, on the virtual time. */
  private Reloads reloadsOf(
      SluiceProperties props,
      Function<SluiceProperties, Settings> resolve,
      Settings settings,
      RateRules inForce) {
    limiters = Limiters.build(
        settings.limiters(),
        time,
        time,
        Runnable::run,
        new ConcurrencyListener() {},
        Optional.empty(),
        warnings);
    rules = inForce;
    reloads = new Reloads(
        settings,
        inForce,
        props,
        resolve,
        limiters,
        new WarnOnce(warnings, "rate rules", time, 30, TimeUnit.SECONDS),
        warnings,
        time);
    return reloads;
  }

  private int limit() {
    return limiters.byName("work").orElseThrow().limiter().snapshot().limit();
  }

  private static String perIp(String resource, String limit) {
    return String.join(
        "\n",
        "rules:",
        "  - id: per-ip",
        "    resource: " + resource,
        "    actor: ip",
        "    limit: " + limit,
        "    unit: minute",
        "");
  }

  /** A properties file naming {@code rules}, polled every 5 s, and no properties poll. */
  private Path withRules(String rulesText, String rulesInterval) throws IOException {
    Path rulesFile = dir.resolve("ratelimits.yaml");
    Files.writeString(rulesFile, rulesText);
    return properties(
        "sluice.rules.file=" + rulesFile,
        "sluice.rules.reload-interval=" + rulesInterval,
        "sluice.limiters.work.path=/api/work");
  }

  private long ruleLimit() {
    return rules.rules().rules().get(0).limit().limit();
  }

  @Test
  void aChangedPropertiesFileIsAppliedAtEachIntervalAndShowsAsTheProperties() throws IOException {
    Path file = properties(work("5s", "1"));
    reloads(file).start(null);
    assertThat(time.pendingTasks()).as("the properties poll").isEqualTo(1);

    properties(work("5s", "4"));
    time.advance(INTERVAL.minusNanos(1));
    assertThat(limit()).as("before the first poll").isEqualTo(1);
    time.advance(Duration.ofNanos(1));
    assertThat(limit()).isEqualTo(4);
    assertThat(reloads.properties().get(MAX)).hasValue("4");

    properties(work("5s", "6"));
    time.advance(INTERVAL);
    assertThat(limit()).as("polling goes on").isEqualTo(6);
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void aBadValueIsRefusedWithKeyValueAndFileAndThePreviousLimitsStay() throws IOException {
    Path file = properties(work("5s", "2"));
    reloads(file).start(null);

    properties(work("5s", "zero"));
    time.advance(INTERVAL);

    assertThat(limit()).isEqualTo(2);
    assertThat(reloads.properties().get(MAX)).hasValue("2");
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("Reloaded Sluice properties rejected, previous limits stay: ")
        .contains(MAX + "='zero'")
        .contains(file.toString());
  }

  @Test
  void anUnreadableFileIsWarnedAboutAndAGoodOneLaterApplies() throws IOException {
    Path file = properties(work("5s", "2"));
    reloads(file).start(null);

    Files.delete(file);
    time.advance(INTERVAL);
    assertThat(limit()).isEqualTo(2);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("Sluice properties not reloaded, previous limits stay: ")
        .contains(file.toString());

    properties(work("5s", "3"));
    time.advance(INTERVAL);
    assertThat(limit()).isEqualTo(3);
  }

  @Test
  void reloadAppliesAtOnceWithoutAPollAndABadValueThrowsKeepingTheLimits() throws IOException {
    Path file = properties(work("0s", "1"));
    reloads(file).start(null);
    assertThat(time.pendingTasks()).as("no reload-interval: no poll").isZero();

    properties(work("0s", "5"));
    reloads.reload();
    assertThat(limit()).isEqualTo(5);
    assertThat(reloads.properties().get(MAX)).hasValue("5");

    properties(work("0s", "-1"));
    assertThatThrownBy(reloads::reload)
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(MAX);
    assertThat(limit()).isEqualTo(5);
    assertThat(reloads.properties().get(MAX)).hasValue("5");
  }

  @Test
  void propertiesWithoutAFileAreNeverPolled() {
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.reload-interval", "5s", "sluice.limiters.work.path", "/api/work"))
        .build();
    Settings settings = Settings.resolve(props, Map.of());
    reloadsOf(props, p -> Settings.resolve(p, Map.of()), settings, null);
    reloads.start(null);
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void closingStopsThePollsAndAStartAfterCloseSchedulesNone() throws IOException {
    Path file = properties(work("5s", "1"));
    reloads(file).start(null);
    assertThat(time.pendingTasks()).isEqualTo(1);
    reloads.close();
    assertThat(time.pendingTasks()).isZero();

    properties(work("5s", "4"));
    time.advance(INTERVAL.multipliedBy(2));
    assertThat(limit()).as("no poll after close").isEqualTo(1);

    reloads.start(null);
    assertThat(time.pendingTasks()).as("closed: nothing scheduled").isZero();
  }

  @Test
  void aRewrittenRulesFileIsAppliedAfterTheIntervalAndAnInvalidOneIsWarnedAbout()
      throws IOException {
    Path file = withRules(perIp("/api/history/*", "2"), "5s");
    reloads(file).start(null);
    assertThat(ruleLimit()).isEqualTo(2);

    Path rulesFile = dir.resolve("ratelimits.yaml");
    Files.writeString(rulesFile, perIp("/api/history/*", "30"));
    time.advance(INTERVAL);
    assertThat(ruleLimit()).isEqualTo(30);

    Files.writeString(rulesFile, perIp("/api/history/*", "lots"));
    time.advance(INTERVAL);
    assertThat(ruleLimit()).as("the rules in force stay").isEqualTo(30);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("Sluice rules not reloaded, the rules in force stay: ")
        .contains(rulesFile + ":5");
  }

  @Test
  void aRulesFileIsNotPolledWithoutAReloadInterval() throws IOException {
    Path file = withRules(perIp("/api/history/*", "2"), "0s");
    reloads(file).start(HISTORY_ROUTE);
    assertThat(time.pendingTasks()).isZero();

    Files.writeString(dir.resolve("ratelimits.yaml"), perIp("/api/history/*", "30"));
    time.advance(INTERVAL.multipliedBy(2));
    assertThat(ruleLimit()).isEqualTo(2);
  }

  @Test
  void aReloadedRuleThatReachesNoRouteIsAppliedWithOneWarning() throws IOException {
    Path file = withRules(perIp("/api/history/*", "2"), "5s");
    reloads(file).start(HISTORY_ROUTE);
    assertThat(time.pendingTasks()).as("the rules poll and the route check").isEqualTo(2);

    time.advance(INTERVAL.multipliedBy(2));
    assertThat(log.warnings())
        .as("the rules checked at start-up are not checked again")
        .isEmpty();

    Files.writeString(dir.resolve("ratelimits.yaml"), perIp("/api/nowhere/*", "7"));
    time.advance(INTERVAL);
    time.advance(INTERVAL); // the check runs after the poll at the latest one interval later
    assertThat(ruleLimit()).as("in force all the same").isEqualTo(7);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith(
            "Sluice rules reloaded with a rule that reaches no route; in force all the same:")
        .contains("/api/nowhere/*");

    time.advance(INTERVAL.multipliedBy(3));
    assertThat(log.warnings()).as("the same set is checked once").hasSize(1);

    reloads.close();
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void reloadedRulesAreNotCheckedWhenTheRouteCheckWasSkippedOrDidNotRun() throws IOException {
    RouteCheck staticFiles =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/api/history/{id}")), false, true);
    assertThat(staticFiles.skipped()).isPresent();
    for (RouteCheck routes : new RouteCheck[] {staticFiles, null}) {
      Path file = withRules(perIp("/api/history/*", "2"), "5s");
      reloads(file).start(routes);
      assertThat(time.pendingTasks()).as("the rules poll alone").isEqualTo(1);

      Files.writeString(dir.resolve("ratelimits.yaml"), perIp("/api/nowhere/*", "7"));
      time.advance(INTERVAL.multipliedBy(2));
      assertThat(ruleLimit()).isEqualTo(7);
      assertThat(log.warnings()).isEmpty();
      reloads.close();
      limiters.shutdown();
    }
  }

  @Test
  void aRulesFileBrokenBetweenStartUpAndStartKeepsTheRulesAndWarns() throws IOException {
    Path file = withRules(perIp("/api/history/*", "2"), "5s");
    reloads(file);
    Path rulesFile = dir.resolve("ratelimits.yaml");
    Files.writeString(rulesFile, perIp("/api/history/*", "lots"));

    reloads.start(HISTORY_ROUTE);

    assertThat(ruleLimit()).isEqualTo(2);
    assertThat(log.warnings())
        .singleElement()
        .asString()
        .startsWith("rules file changed into an invalid version; previous rules stay: ")
        .contains(rulesFile.toString());
  }

  @Test
  void rulesGivenInCodeAloneAreNotPolled() throws IOException {
    Path file = properties(work("0s", "1"));
    SluiceProperties props =
        SluiceProperties.builder().file(file).env(Map.of()).system(Map.of()).build();
    Settings settings = Settings.resolve(props, Map.of());
    RateRules inCode = RateRules.builder()
        .rules(dev.sluice.rules.RuleSet.of(List.of(Rule.builder()
            .resource("/api/nowhere/*")
            .limit(3, Duration.ofMinutes(1))
            .build())))
        .clock(time)
        .build();
    reloadsOf(props, p -> Settings.resolve(p, Map.of()), settings, inCode);
    reloads.start(HISTORY_ROUTE);
    assertThat(time.pendingTasks()).isZero();
    reloads.close();
  }
}
