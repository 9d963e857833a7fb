package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.request.ResourcePattern;
import dev.sluice.rules.Rule;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The start-up check that each limiter path and rule resource reaches a route: a misspelt path
 * fails start-up (strict) or is a warning, with the nearest route; wildcard routes and apps
 * without routes raise no false alarm.
 */
class RouteCheckTest {

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

  private static SluiceProperties system(Map<String, String> values) {
    return SluiceProperties.builder().env(Map.of()).system(values).build();
  }

  private void startTranscodeApp(Map<String, String> values) {
    server = TestServer.start(cfg -> cfg.properties(system(values)), (app, plugin) -> {
      app.routes.post("/api/transcode", ctx -> ctx.result("done"));
      app.routes.get("/api/history/{id}", ctx -> ctx.result("history"));
    });
  }

  @Tag("integration")
  @Test
  void aLimiterPathThatMatchesNoRouteStopsStartUpNamingTheNearestRoute() {
    assertThatThrownBy(() -> startTranscodeApp(Map.of(
            "sluice.limiters.transcode.path", "/api/transcod",
            "sluice.limiters.transcode.max-concurrency", "1")))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageStartingWith("sluice.limiters.transcode.path='/api/transcod'"
            + " (from system property -Dsluice.limiters.transcode.path)")
        .hasMessageContaining("limiter 'transcode' matches no route of the application")
        .hasMessageContaining("did you mean /api/transcode?")
        .hasMessageContaining("sluice.strict=false to only warn");
  }

  @Tag("integration")
  @Test
  void aPathSetInCodeThatMatchesNoRouteIsOneLineToo() {
    Throwable thrown = catchThrowable(() -> server = TestServer.start(
        cfg -> cfg.properties(system(Map.of()))
            .limiter("work", l -> l.path("/api/wrok").maxConcurrency(1)),
        (app, plugin) -> app.routes.get("/api/work", ctx -> ctx.result("work"))));

    assertThat(thrown)
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageStartingWith("sluice.limiters.work.path='/api/wrok' (from code)")
        .hasMessageContaining("did you mean /api/work?");
    // its trace would run through app.start(), not the line that set the path
    assertThat(thrown.getStackTrace()).isEmpty();
  }

  @Tag("integration")
  @Test
  void lenientAnUnmatchedLimiterPathIsAWarningAndTheAppStarts() {
    startTranscodeApp(Map.of(
        "sluice.strict", "false",
        "sluice.limiters.transcode.path", "/api/transcod",
        "sluice.limiters.transcode.max-concurrency", "1"));

    assertThat(server.get("/health").statusCode()).isEqualTo(200);
    assertThat(log.warnings())
        .anySatisfy(w -> assertThat(w)
            .contains("sluice.limiters.transcode.path='/api/transcod'")
            .contains("did you mean /api/transcode?")
            .contains("started anyway"));
  }

  @Tag("integration")
  @Test
  void aRuleResourceThatMatchesNoRouteStopsStartUpAndAWildcardOverAPathParameterIsFine()
      throws IOException {
    Path rules = dir.resolve("ratelimits.yaml");
    Files.writeString(rules, """
            rules:
              - id: history
                resource: /api/history/*
                method: GET
                actor: ip
                limit: 10
                unit: second
              - id: historie
                resource: /api/histroy/*
                actor: ip
                limit: 10
                unit: second
            """);

    assertThatThrownBy(() -> startTranscodeApp(Map.of("sluice.rules.file", rules.toString())))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageStartingWith("sluice.rules.file='" + rules + "'")
        .hasMessageContaining("rule 'historie' (/api/histroy/*) matches no route")
        .hasMessageContaining("did you mean /api/history/{id}?")
        .hasMessageNotContaining("rule 'history' ");
  }

  @Tag("integration")
  @Test
  void aRuleWhoseMethodNoRouteAnswersIsNamedWithTheMethodsThere() throws IOException {
    Path rules = dir.resolve("ratelimits.yaml");
    Files.writeString(rules, """
            rules:
              - id: transcode-gets
                resource: /api/transcode
                method: GET
                actor: ip
                limit: 10
                unit: second
            """);

    assertThatThrownBy(() -> startTranscodeApp(Map.of("sluice.rules.file", rules.toString())))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("rule 'transcode-gets' (GET /api/transcode) matches no GET route")
        .hasMessageContaining("answer POST");
  }

  @Tag("integration")
  @Test
  void anAppWithACatchAllRouteRaisesNoFalseAlarm() {
    server = TestServer.start(
        cfg -> cfg.properties(system(Map.of(
            "sluice.limiters.work.path", "/api/anything/**",
            "sluice.limiters.work.max-concurrency", "1"))),
        (app, plugin) -> app.routes.get("/*", ctx -> ctx.result("any")));

    assertThat(server.get("/api/anything/at/all").statusCode()).isEqualTo(200);
    assertThat(log.warnings()).noneMatch(w -> w.contains("matches no route"));
  }

  @Tag("integration")
  @Test
  void anAppThatAnswersInBeforeHandlersOnlyIsNotChecked() {
    SluicePlugin plugin = new SluicePlugin(cfg -> cfg.properties(system(Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.max-concurrency", "1",
        // the live page's routes are Sluice's, not the application's
        "sluice.dashboard.path", "/sluice/dashboard"))));
    io.javalin.Javalin app = io.javalin.Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(plugin);
      config.routes.before(
          "/api/*", ctx -> ctx.result("answered in a filter").skipRemainingHandlers());
    });
    ch.qos.logback.classic.Level before = log.logger().getLevel();
    log.logger().setLevel(ch.qos.logback.classic.Level.INFO); // the skip is said at info
    try {
      app.start(0);
      assertThat(log.events())
          .anySatisfy(e -> assertThat(e.getFormattedMessage())
              .contains("does not check its paths against the routes")
              .contains("declares no route"));
      assertThat(log.warnings()).noneMatch(w -> w.contains("matches no route"));
    } finally {
      log.logger().setLevel(before);
      app.stop();
    }
  }

  @Tag("integration")
  @Test
  void aReloadedRuleThatMatchesNoRouteIsAWarningAndIsInForce() throws IOException {
    VirtualTime time = new VirtualTime();
    Path rules = dir.resolve("ratelimits.yaml");
    String good = """
            rules:
              - id: history
                resource: /api/history/*
                actor: ip
                limit: 10
                unit: minute
            """;
    Files.writeString(rules, good);
    Map<String, String> values = new HashMap<>();
    values.put("sluice.rules.file", rules.toString());
    values.put("sluice.rules.reload-interval", "5s");
    server = TestServer.start(
        cfg -> cfg.properties(system(values)).clock(time).scheduler(time),
        (app, plugin) -> app.routes.get("/api/history/{id}", ctx -> ctx.result("history")));

    Files.writeString(
        rules, good.replace("/api/history/*", "/api/histroy/*") + "# moved by mistake\n");
    time.advance(Duration.ofSeconds(5));
    time.advance(Duration.ofSeconds(5));

    assertThat(server.plugin.ruleSnapshots())
        .extracting(s -> s.rule().resource().toString())
        .containsExactly("/api/histroy/*");
    assertThat(log.warnings())
        .anySatisfy(w -> assertThat(w)
            .contains("reloaded with a rule that reaches no route")
            .contains("in force all the same")
            .contains("did you mean /api/history/{id}?"));
  }

  // the overlap of a pattern and a route, without a server

  private static boolean overlaps(String pattern, String route) {
    return new RouteCheck(List.of(new RouteCheck.Route("GET", route)), false, false)
        .overlaps(ResourcePattern.parse(pattern), route);
  }

  @Test
  void aPatternReachesARouteWhenSomePathMatchesBoth() {
    assertThat(overlaps("/api/transcode", "/api/transcode")).isTrue();
    assertThat(overlaps("/api/transcode", "/api/transcode/")).isTrue();
    assertThat(overlaps("/api/history/*", "/api/history/{id}")).isTrue();
    assertThat(overlaps("/api/history/42", "/api/history/{id}")).isTrue();
    assertThat(overlaps("/api/*/claim", "/api/{job}/claim")).isTrue();
    assertThat(overlaps("/api/**", "/api/transcode")).isTrue();
    assertThat(overlaps("/api/**", "/api")).isTrue();
    assertThat(overlaps("/**", "/health")).isTrue();
    assertThat(overlaps("/files/a/b", "/files/<path>")).isTrue();
    assertThat(overlaps("/anything/at/all", "/*")).isTrue();
    assertThat(overlaps("/api/x/y", "/api/*")).isTrue();
    assertThat(overlaps("/docs/v1/intro", "/docs/{version}*")).isTrue();
  }

  @Test
  void aPatternMissesARouteNoPathMatchesBoth() {
    assertThat(overlaps("/api/transcod", "/api/transcode")).isFalse();
    assertThat(overlaps("/api/history", "/api/history/{id}")).isFalse();
    assertThat(overlaps("/api/history/*/x", "/api/history/{id}")).isFalse();
    assertThat(overlaps("/api/**", "/health")).isFalse();
    assertThat(overlaps("/api/*", "/api/history/{id}")).isFalse();
    assertThat(overlaps("/other/x", "/files/<path>")).isFalse();
  }

  @Test
  void caseInsensitiveRoutesAreComparedWithoutCase() {
    RouteCheck check =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/API/Work")), true, false);
    assertThat(check.limiterProblem("work", ResourcePattern.parse("/api/work"))).isEmpty();
  }

  @Test
  void aHeadRuleIsAnsweredByAGetRouteAndOptionsByAny() {
    RouteCheck check =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/api/items")), false, false);
    Rule head = Rule.builder()
        .resource("/api/items")
        .method("HEAD")
        .actor("ip")
        .limit(1, Duration.ofSeconds(1))
        .build();
    Rule options = Rule.builder()
        .resource("/api/items")
        .method("OPTIONS")
        .actor("ip")
        .limit(1, Duration.ofSeconds(1))
        .build();
    Rule post = Rule.builder()
        .resource("/api/items")
        .method("POST")
        .actor("ip")
        .limit(1, Duration.ofSeconds(1))
        .build();
    assertThat(check.ruleProblem(head)).isEmpty();
    assertThat(check.ruleProblem(options)).isEmpty();
    assertThat(check.ruleProblem(post))
        .hasValueSatisfying(
            p -> assertThat(p).contains("matches no POST route").contains("answer GET"));
  }

  @Test
  void staticFilesOrNoRoutesSkipTheCheck() {
    assertThat(new RouteCheck(List.of(), false, false).skipped()).isPresent();
    RouteCheck withFiles =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/api/items")), false, true);
    assertThat(withFiles.skipped()).hasValueSatisfying(s -> assertThat(s).contains("static"));
    assertThat(withFiles.limiterProblem("x", ResourcePattern.parse("/downloads/**")))
        .isEmpty();
  }

  // the problems the check reports, without a server

  private static RouteCheck routes(RouteCheck.Route... routes) {
    return new RouteCheck(List.of(routes), false, false);
  }

  private static Rule rule(String id, String method, String resource) {
    Rule.Builder b =
        Rule.builder().id(id).resource(resource).actor("ip").limit(1, Duration.ofSeconds(1));
    return (method == null ? b : b.method(method)).build();
  }

  @Test
  void aLimiterPathThatReachesNoRouteIsNamedWithTheNearestRouteOfTheSameShape() {
    RouteCheck check = routes(
        new RouteCheck.Route("GET", "/api/history/{id}"),
        new RouteCheck.Route("GET", "/files/<path>"),
        new RouteCheck.Route("POST", "/api/work"));
    assertThat(check.skipped()).isEmpty();
    assertThat(check.limiterProblem("work", ResourcePattern.parse("/api/work"))).isEmpty();
    assertThat(check.limiterProblem("history", ResourcePattern.parse("/api/histroy/*")))
        .hasValue("limiter 'history' matches no route of the application, so it guards nothing;"
            + " did you mean /api/history/{id}?");
    assertThat(check.limiterProblem("files", ResourcePattern.parse("/filez/*")))
        .hasValue("limiter 'files' matches no route of the application, so it guards nothing;"
            + " did you mean /files/<path>?");
    assertThat(check.limiterProblem("far", ResourcePattern.parse("/completely/elsewhere")))
        .hasValue("limiter 'far' matches no route of the application, so it guards nothing");
  }

  @Test
  void aRuleOnAPathWithOtherMethodsNamesTheMethodsThere() {
    RouteCheck check = routes(
        new RouteCheck.Route("GET", "/api/items"),
        new RouteCheck.Route("PUT", "/api/items"),
        new RouteCheck.Route("GET", "/api/items/{id}"),
        new RouteCheck.Route("DELETE", "/api/other"));
    assertThat(check.ruleProblem(rule("items-get", "GET", "/api/items"))).isEmpty();
    assertThat(check.ruleProblem(rule("items-any", null, "/api/items/**"))).isEmpty();
    assertThat(check.ruleProblem(rule("items-post", "POST", "/api/items")))
        .hasValue("rule 'items-post' (POST /api/items) matches no POST route of the application;"
            + " the routes on its paths answer GET, PUT");
    assertThat(check.ruleProblem(rule("typo", null, "/api/itemz")))
        .hasValue("rule 'typo' (/api/itemz) matches no route of the application; did you mean"
            + " /api/items?");
    assertThat(check.ruleProblem(rule("typo-get", "GET", "/api/itemz")))
        .hasValue("rule 'typo-get' (GET /api/itemz) matches no route of the application; did you"
            + " mean /api/items?");
  }

  @Test
  void aWebSocketRouteAnswersEveryMethodOnItsPath() {
    RouteCheck check =
        routes(new RouteCheck.Route("GET", "/api/items"), new RouteCheck.Route(null, "/live/feed"));
    assertThat(check.ruleProblem(rule("live", "POST", "/live/*"))).isEmpty();
    assertThat(check.limiterProblem("live", ResourcePattern.parse("/live/**"))).isEmpty();
  }

  @Test
  void withoutRoutesOfItsOwnTheAppIsNotCheckedAndSaysWhy() {
    RouteCheck none =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/sluice")), true, false, false);
    assertThat(none.skipped())
        .hasValueSatisfying(s -> assertThat(s).startsWith("the application declares no route"));
    assertThat(none.ruleProblem(rule("x", "GET", "/nowhere"))).isEmpty();
    assertThat(none.limiterProblem("x", ResourcePattern.parse("/nowhere"))).isEmpty();
    RouteCheck files =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/api/items")), false, false, true);
    assertThat(files.ruleProblem(rule("x", "GET", "/nowhere"))).isEmpty();
  }

  @Test
  void caseSensitiveRoutesTellCaseApart() {
    RouteCheck check =
        new RouteCheck(List.of(new RouteCheck.Route("GET", "/API/Work")), false, false);
    assertThat(check.limiterProblem("work", ResourcePattern.parse("/api/work"))).isPresent();
    assertThat(check.limiterProblem("work", ResourcePattern.parse("/API/Work"))).isEmpty();
  }

  @Test
  void aRouteWildcardTakesNoneOrManySegmentsAndAPatternSubtreeTakesTheRest() {
    assertThat(overlaps("/api", "/api/<rest>")).isTrue();
    assertThat(overlaps("/api/a/b/c", "/api/{id}/c")).isFalse();
    assertThat(overlaps("/api/a/b/c", "/api/*/c")).isTrue();
    assertThat(overlaps("/api/a/b/c", "/api/<rest>/c")).isTrue();
    assertThat(overlaps("/api/**", "/api/<rest>/c")).isTrue();
    assertThat(overlaps("/api/x/**", "/api/{id}")).isTrue();
    assertThat(overlaps("/api/x/**", "/other/{id}")).isFalse();
    assertThat(overlaps("/", "/")).isTrue();
    assertThat(overlaps("/a/b", "/a")).isFalse();
  }
}
