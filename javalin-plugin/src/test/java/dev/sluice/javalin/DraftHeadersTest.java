package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Sluice's {@code RateLimit-Policy} / {@code RateLimit} against draft-ietf-httpapi-ratelimit-headers-11,
 * parsed as Structured Fields: the rules' items, and a concurrency limiter's own policy in the
 * draft's quota unit {@code concurrent-requests} ({@code sluice.headers.concurrency}).
 */
@Tag("integration")
class DraftHeadersTest {

  @TempDir
  Path dir;

  private final CountDownLatch release = new CountDownLatch(1);
  private TestServer server;

  @AfterEach
  void stop() {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  // --- the parser against the draft's own examples (sections 3.2 and 4.2 of -11)

  @Test
  void theDraftsExamplesParse() {
    List<SfList.Item> two = SfList.parse("\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600");
    assertThat(two).extracting(SfList.Item::value).containsExactly("permin", "perhr");
    assertThat(two.get(1).params()).containsEntry("q", 1000L).containsEntry("w", 3600L);

    SfList.Item bytes = SfList.parse(
            "\"peruser\";q=65535;qu=\"content-bytes\";w=10;pk=:sdfjLJUOUH==:")
        .get(0);
    assertThat(bytes.params()).containsEntry("qu", "content-bytes").containsKey("pk");
    assertThat(bytes.params().get("pk")).isInstanceOf(byte[].class);

    SfList.Item limit = SfList.parse("\"default\";r=999;pk=:dHJpYWwxMjEzMjM=:").get(0);
    assertThat(new String(
            (byte[]) limit.params().get("pk"), java.nio.charset.StandardCharsets.US_ASCII))
        .isEqualTo("trial121323");
    // and refuses what the grammar refuses
    for (String bad : List.of(
        "\"a\";Q=1",
        "\"a\";q=1,",
        "\"a\" \"b\"",
        "\"a\";q=1234567890123456",
        "\"a;q=1",
        "\"a\";q=")) {
      assertThatThrownBy(() -> SfList.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  // --- the rules' fields

  @Test
  void aRulesFieldsAreDraftElevenItems() throws IOException {
    startRules(Map.of());

    HttpResponse<String> ok = server.get("/api/history/1");
    HttpResponse<String> second = server.get("/api/history/1");
    HttpResponse<String> limited = server.get("/api/history/1");

    for (HttpResponse<String> r : List.of(ok, second, limited)) {
      SfList.Item policy = only(r, "RateLimit-Policy");
      assertThat(policy.value()).as("the policy's id is a String").isEqualTo("history-per-ip");
      assertThat(policy.params()).containsEntry("q", 2L).containsEntry("w", 60L);
      assertThat(policy.params())
          .as("a quota of requests: the default unit")
          .doesNotContainKey("qu");
      SfList.Item rate = only(r, "RateLimit");
      assertThat(rate.value()).isEqualTo("history-per-ip");
      assertThat(rate.params().keySet()).containsExactly("r", "t");
      assertThat((Long) rate.params().get("t")).isBetween(0L, 60L);
    }
    assertThat(only(ok, "RateLimit").params()).containsEntry("r", 1L);
    assertThat(only(limited, "RateLimit").params()).containsEntry("r", 0L);
    assertThat(limited.statusCode()).isEqualTo(429);
    // Retry-After must not point before the end of the effective window (draft-11 section 6)
    assertThat(Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow()))
        .isGreaterThanOrEqualTo((Long) only(limited, "RateLimit").params().get("t"));
  }

  // --- the concurrency limiter's policy

  @Test
  void admittedAndQueueFullAnswersCarryTheLimitersPolicyInConcurrentRequests() {
    startWork(Map.of("sluice.headers.concurrency", "true"), 2, 0);

    HttpResponse<String> quick = server.get("/api/quick");
    SfList.Item policy = only(quick, "RateLimit-Policy");
    assertThat(policy.value()).isEqualTo("work");
    assertThat(policy.params())
        .containsExactly(Map.entry("q", 2L), Map.entry("qu", "concurrent-requests"));
    SfList.Item free = only(quick, "RateLimit");
    assertThat(free.value()).isEqualTo("work");
    assertThat(free.params())
        .as("this request holds one of 2 permits")
        .containsExactly(Map.entry("r", 1L));

    CompletableFuture<HttpResponse<String>> a = server.getAsync("/api/work");
    CompletableFuture<HttpResponse<String>> b = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 2);

    HttpResponse<String> full = server.get("/api/work");
    assertThat(full.statusCode()).isEqualTo(429);
    assertThat(only(full, "RateLimit-Policy").params()).containsEntry("q", 2L);
    assertThat(only(full, "RateLimit").params()).containsExactly(Map.entry("r", 0L));
    assertThat(full.body())
        .contains("\"type\":\"https://sluice.dev/problems/queue-full\"")
        .as("a fixed limit is no reduced capacity")
        .doesNotContain("temporary-reduced-capacity");

    release.countDown();
    assertThat(a.join().statusCode()).isEqualTo(200);
    assertThat(b.join().statusCode()).isEqualTo(200);
  }

  @Test
  void offByDefault() {
    startWork(Map.of(), 2, 0);

    HttpResponse<String> quick = server.get("/api/quick");

    assertThat(quick.statusCode()).isEqualTo(200);
    assertThat(quick.headers().allValues("RateLimit-Policy")).isEmpty();
    assertThat(quick.headers().allValues("RateLimit")).isEmpty();
  }

  @Test
  void aRuleAndTheLimiterOnOnePathMakeOneListOfBoth() throws IOException {
    startRules(Map.of("sluice.headers.concurrency", "true"));

    HttpResponse<String> ok = server.get("/api/history/1");

    List<SfList.Item> policies = field(ok, "RateLimit-Policy");
    assertThat(policies)
        .extracting(SfList.Item::value)
        .containsExactly("history-per-ip", "history");
    assertThat(policies.get(1).params())
        .containsEntry("q", 3L)
        .containsEntry("qu", "concurrent-requests");
    assertThat(field(ok, "RateLimit"))
        .extracting(SfList.Item::value)
        .containsExactly("history-per-ip", "history");
    assertThat(field(ok, "RateLimit").get(1).params()).containsEntry("r", 2L);

    server.get("/api/history/1");
    HttpResponse<String> limited = server.get("/api/history/1");
    assertThat(limited.statusCode()).isEqualTo(429);
    assertThat(field(limited, "RateLimit-Policy"))
        .as("the rule refused: the limiter was not asked")
        .extracting(SfList.Item::value)
        .containsExactly("history-per-ip");
  }

  @Test
  void anAdaptiveLimitBelowItsMaximumRefusesAsTemporaryReducedCapacity() throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, """
        sluice.headers.concurrency=true
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.max-concurrency=1
        sluice.limiters.work.max-queue=0
        """);
    SluiceProperties props =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();
    server = TestServer.start(cfg -> cfg.properties(props), this::routes);
    Files.writeString(f, """
        sluice.headers.concurrency=true
        sluice.limiters.work.path=/api/work
        sluice.limiters.work.limit=latency
        sluice.limiters.work.max-concurrency=8
        sluice.limiters.work.max-queue=0
        """);
    server.plugin.reload(); // the latency limit starts from the limit in force: 1 of at most 8
    assertThat(work().limit()).isEqualTo(1);

    CompletableFuture<HttpResponse<String>> held = server.getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    HttpResponse<String> full = server.get("/api/work");

    assertThat(full.statusCode()).isEqualTo(429);
    assertThat(full.body())
        .contains(
            "\"type\":\"https://sluice.dev/problems/queue-full\"",
            "\"temporary-reduced-capacity\":"
                + "\"https://iana.org/assignments/http-problem-types#temporary-reduced-capacity\"",
            "\"violated-policies\":[\"work\"]",
            "\"limit\":1",
            "\"maxConcurrency\":8");
    assertThat(only(full, "RateLimit-Policy").params())
        .as("the policy tells the temporarily lower quota")
        .containsEntry("q", 1L);
    assertThat(only(full, "RateLimit").params()).containsEntry("r", 0L);
    release.countDown();
    assertThat(held.join().statusCode()).isEqualTo(200);
  }

  // --- helpers

  private void startWork(Map<String, String> system, int maxConcurrency, int maxQueue) {
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(
        cfg -> cfg.properties(props)
            .limiter(
                "work", l -> l.path("/api/*").maxConcurrency(maxConcurrency).maxQueue(maxQueue)),
        this::routes);
  }

  private void routes(io.javalin.config.JavalinConfig app, SluicePlugin plugin) {
    app.routes.get("/api/work", ctx -> ctx.result(block()));
    app.routes.get("/api/quick", ctx -> ctx.result("quick"));
  }

  private void startRules(Map<String, String> extra) throws IOException {
    Path rules = dir.resolve("ratelimits.yaml");
    Files.writeString(rules, """
        rules:
          - id: history-per-ip
            resource: /api/history/*
            actor: ip
            limit: 2
            unit: minute
        """);
    Map<String, String> system = new java.util.HashMap<>(extra);
    system.put("sluice.rules.file", rules.toString());
    SluiceProperties props =
        SluiceProperties.builder().env(Map.of()).system(system).build();
    server = TestServer.start(
        cfg -> cfg.properties(props)
            .limiter("history", l -> l.path("/api/history/*").maxConcurrency(3).maxQueue(0)),
        (app, plugin) -> app.routes.get(
            "/api/history/{id}", ctx -> ctx.result("history " + ctx.pathParam("id"))));
  }

  private String block() throws InterruptedException {
    release.await(20, TimeUnit.SECONDS);
    return "done";
  }

  private ConcurrencySnapshot work() {
    return server.plugin.limiter("work").orElseThrow().snapshot();
  }

  /** A field's List, its field lines combined as RFC 9110 section 5.3 says (joined by ", "). */
  private static List<SfList.Item> field(HttpResponse<String> r, String name) {
    List<String> lines = r.headers().allValues(name);
    assertThat(lines).as(name).isNotEmpty();
    return SfList.parse(String.join(", ", lines));
  }

  private static SfList.Item only(HttpResponse<String> r, String name) {
    List<SfList.Item> items = field(r, name);
    assertThat(items).as(name).hasSize(1);
    return items.get(0);
  }
}
