package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.rules.Rule;
import dev.sluice.rules.RuleSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the plugin checks as the server starts: limiter paths and rule resources against the
 * routes (strict: one failure naming them all; lenient: a warning each), and a store URI no
 * provider supports.
 */
class StartUpChecksTest {

  private static final RuleSet ELSEWHERE = RuleSet.of(List.of(Rule.builder()
      .id("elsewhere")
      .resource("/api/elsewhere/*")
      .limit(5, Duration.ofMinutes(1))
      .build()));

  @TempDir
  Path dir;

  @RegisterExtension
  final LogCapture log = new LogCapture(SluicePlugin.class);

  private TestServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  private static SluiceProperties props(Map<String, String> system) {
    return SluiceProperties.builder().env(Map.of()).system(system).build();
  }

  @Test
  void strictAnUnmatchedLimiterPathAndRuleResourceFailStartUpTogetherWithoutATrace() {
    SluiceConfigException failure = catchThrowableOfType(
        SluiceConfigException.class,
        () -> server = TestServer.start(
            cfg -> cfg.properties(props(Map.of(
                    "sluice.limiters.work.path", "/api/nowhere",
                    "sluice.limiters.work.max-concurrency", "2")))
                .rules(ELSEWHERE),
            (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work"))));

    assertThat(failure).isNotNull();
    assertThat(failure.getMessage())
        .contains("limiter 'work' matches no route of the application")
        .contains("sluice.limiters.work.path")
        .contains("rule 'elsewhere' (/api/elsewhere/*) matches no route of the application")
        .contains("cfg.rules(..)");
    assertThat(failure.getStackTrace()).isEmpty();
  }

  @Test
  void lenientEachUnmatchedOneIsAWarningNamingItsSourceAndTheAppStarts() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(rules, """
        rules:
          - id: elsewhere
            resource: /api/elsewhere/*
            actor: ip
            limit: 5
            unit: minute
        """);
    Map<String, String> system = new HashMap<>();
    system.put("sluice.strict", "false");
    system.put("sluice.rules.file", rules.toString());
    system.put("sluice.limiters.work.path", "/api/nowhere");
    server = TestServer.start(
        cfg -> cfg.properties(props(system)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")));

    assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
    assertThat(log.warnings())
        .filteredOn(w -> w.contains("started anyway: sluice.strict=false"))
        .hasSize(2)
        .anySatisfy(w -> assertThat(w).contains("limiter 'work' matches no route"))
        .anySatisfy(w -> assertThat(w)
            .contains("rule 'elsewhere'")
            .contains("sluice.rules.file")
            .contains(rules.toString()));
  }

  @Test
  void everyPathAndRuleThatReachesARouteStartsWithoutAWarning() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of("sluice.limiters.work.path", "/api/elsewhere/*")))
            .rules(ELSEWHERE),
        (app, plugin) -> app.routes.get("/api/elsewhere/{id}", ctx -> ctx.result("there")));
    assertThat(server.get("/api/elsewhere/1").body()).isEqualTo("there");
    assertThat(log.warnings()).isEmpty();
  }

  @Test
  void aStoreUriNoProviderSupportsFailsStartUpNamingTheKeyAndWhatToAdd() {
    assertThatThrownBy(() -> server = TestServer.start(
            cfg -> cfg.properties(props(Map.of("sluice.redis.uri", "nosuch://somewhere:1"))),
            (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.redis.uri")
        .hasMessageContaining("nosuch://somewhere:1")
        .hasMessageContaining(
            "no dev.sluice.store.StoreProvider on the classpath supports this URI");
  }

  @Test
  void remoteRulesAloneStartWithNoRuleInForceUntilTheUrlAnswers() {
    server = TestServer.start(
        cfg -> cfg.properties(props(Map.of(
            "sluice.rules.remote-url", "http://127.0.0.1:1/rules.yaml",
            "sluice.rules.reload-interval", "0s"))),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work")));
    assertThat(server.plugin.rateRules().orElseThrow().rules().rules()).isEmpty();
    assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
  }
}
