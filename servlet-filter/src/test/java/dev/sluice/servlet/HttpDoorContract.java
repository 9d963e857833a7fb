package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What every HTTP door of Sluice answers, checked end to end against each door in a real server
 * (one subclass per door): the same properties give the same statuses, problem bodies and headers.
 */
abstract class HttpDoorContract {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** How this door starts. */
  abstract HttpDoor.Starter starter();

  @TempDir
  Path dir;

  final CountDownLatch release = new CountDownLatch(1);
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  HttpDoor door;

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    if (door != null) {
      door.stop();
    }
  }

  private String block() {
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "done";
  }

  void start(Map<String, String> properties) throws Exception {
    start(properties, null, 64);
  }

  private void start(Map<String, String> properties, VirtualTime time, int threads)
      throws Exception {
    SluiceProperties p =
        SluiceProperties.builder().env(Map.of()).system(properties).build();
    door = starter().start(p, time, threads, this::block, dir);
  }

  static Map<String, String> work(int maxConcurrency, int maxQueue) {
    Map<String, String> m = new HashMap<>();
    m.put("sluice.limiters.work.path", "/api/work");
    m.put("sluice.limiters.work.max-concurrency", Integer.toString(maxConcurrency));
    m.put("sluice.limiters.work.max-queue", Integer.toString(maxQueue));
    return m;
  }

  ConcurrencySnapshot work() {
    return door.limiter("work").snapshot();
  }

  CompletableFuture<HttpResponse<String>> getAsync(String path, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(door.base() + path)).timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return client.sendAsync(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  HttpResponse<String> get(String path, String... headers) {
    return getAsync(path, headers).join();
  }

  static JsonNode problem(HttpResponse<String> r) throws IOException {
    assertThat(r.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    return JSON.readTree(r.body());
  }

  @Test
  void anAdmittedRequestIsServed() throws Exception {
    start(work(1, 0));
    release.countDown();

    HttpResponse<String> r = get("/api/work");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).isEqualTo("done");
    assertThat(work().admitted()).isEqualTo(1);
    assertThat(work().inFlight()).isZero();
  }

  @Test
  void aQueuedRequestIsServedOnceAPermitComesFree() throws Exception {
    start(work(1, 1));
    CompletableFuture<HttpResponse<String>> first = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> second = getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    release.countDown();

    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(second.join().statusCode()).isEqualTo(200);
    assertThat(second.join().body()).isEqualTo("done");
    await().until(() -> work().inFlight() == 0);
    assertThat(work().admitted()).isEqualTo(2);
  }

  @Test
  void aFullQueueAnswers429WithRetryAfterAndAProblem() throws Exception {
    start(work(1, 1));
    CompletableFuture<HttpResponse<String>> first = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> second = getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    HttpResponse<String> full = get("/api/work");

    assertThat(full.statusCode()).isEqualTo(429);
    assertThat(full.headers().firstValue("Retry-After").map(Long::parseLong))
        .hasValueSatisfying(s -> assertThat(s).isGreaterThanOrEqualTo(1));
    JsonNode body = problem(full);
    assertThat(body.get("type").asText()).isEqualTo("https://sluice.dev/problems/queue-full");
    assertThat(body.get("title").asText()).isEqualTo("Queue full");
    assertThat(body.get("status").asInt()).isEqualTo(429);
    assertThat(body.get("limiter").asText()).isEqualTo("work");
    assertThat(body.get("reason").asText()).isEqualTo("queue_full");
    assertThat(body.get("retryAfterSeconds").asLong())
        .isEqualTo(Long.parseLong(full.headers().firstValue("Retry-After").orElseThrow()));
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(second.join().statusCode()).isEqualTo(200);
  }

  @Test
  void aQueuedRequestTimesOutWith504() throws Exception {
    VirtualTime time = new VirtualTime();
    Map<String, String> p = work(1, 4);
    p.put("sluice.limiters.work.queue-timeout", "30s");
    start(p, time, 64);
    CompletableFuture<HttpResponse<String>> first = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> waiting = getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    time.advance(Duration.ofSeconds(30));

    HttpResponse<String> timedOut = waiting.join();
    assertThat(timedOut.statusCode()).isEqualTo(504);
    JsonNode body = problem(timedOut);
    assertThat(body.get("type").asText()).isEqualTo("https://sluice.dev/problems/queue-timeout");
    assertThat(body.get("limiter").asText()).isEqualTo("work");
    assertThat(body.get("reason").asText()).isEqualTo("queue_timeout");
    assertThat(work().queued()).isZero();
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
  }

  @Test
  void aSpentDeadlineAnswers504AtOnce() throws Exception {
    Map<String, String> p = work(1, 4);
    p.put("sluice.limiters.work.deadline-header", "X-Deadline-Ms");
    start(p);

    HttpResponse<String> r = get("/api/work", "X-Deadline-Ms", "0");

    assertThat(r.statusCode()).isEqualTo(504);
    assertThat(problem(r).get("reason").asText()).isEqualTo("deadline_exceeded");
    assertThat(work().admitted()).isZero();
  }

  @Test
  void aKeyAtItsCapAnswers429NamingTheKey() throws Exception {
    Map<String, String> p = work(1, 3);
    p.put("sluice.limiters.work.queue", "fair");
    p.put("sluice.limiters.work.queue-key", "header:X-Host-Id");
    p.put("sluice.limiters.work.max-queue-per-key", "1");
    start(p);
    CompletableFuture<HttpResponse<String>> first = getAsync("/api/work", "X-Host-Id", "a");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> queued = getAsync("/api/work", "X-Host-Id", "b");
    await().until(() -> work().queued() == 1);

    HttpResponse<String> capped = get("/api/work", "X-Host-Id", "b");

    assertThat(capped.statusCode()).isEqualTo(429);
    JsonNode body = problem(capped);
    assertThat(body.get("type").asText()).isEqualTo("https://sluice.dev/problems/queue-full");
    assertThat(body.get("reason").asText()).isEqualTo("key_cap");
    assertThat(body.get("key").asText()).isEqualTo("b");
    assertThat(capped.headers().firstValue("Retry-After")).isPresent();
    release.countDown();
    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(queued.join().statusCode()).isEqualTo(200);
  }

  private static final String PER_IP = """
      rules:
        - id: history-per-ip
          resource: /api/history/*
          actor: ip
          limit: 2
          unit: minute\
      """;

  private void startRules() throws Exception {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, PER_IP);
    start(Map.of("sluice.rules.file", file.toString()));
  }

  @Test
  void anAdmittedRequestCarriesTheRateHeaders() throws Exception {
    startRules();

    HttpResponse<String> ok = get("/api/history/1");

    assertThat(ok.statusCode()).isEqualTo(200);
    assertThat(ok.body()).isEqualTo("history 1");
    assertThat(ok.headers().firstValue("RateLimit-Policy")).hasValue("\"history-per-ip\";q=2;w=60");
    assertThat(ok.headers().firstValue("RateLimit").orElseThrow())
        .startsWith("\"history-per-ip\";r=1;t=");
    assertThat(ok.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
    assertThat(ok.headers().firstValue("X-RateLimit-Remaining")).hasValue("1");
    assertThat(ok.headers().firstValue("Retry-After")).isEmpty();
  }

  @Test
  void anExceededRuleAnswers429NamingTheRuleWithEveryRateHeader() throws Exception {
    startRules();
    get("/api/history/1");
    get("/api/history/2");

    HttpResponse<String> limited = get("/api/history/3");

    assertThat(limited.statusCode()).isEqualTo(429);
    JsonNode body = problem(limited);
    assertThat(body.get("type").asText()).isEqualTo("https://sluice.dev/problems/rate-limited");
    assertThat(body.get("title").asText()).isEqualTo("Rate limit exceeded");
    assertThat(body.get("rule").asText()).isEqualTo("history-per-ip");
    assertThat(body.get("reason").asText()).isEqualTo("rate_limited");
    long retryAfter = Long.parseLong(limited.headers().firstValue("Retry-After").orElseThrow());
    assertThat(retryAfter).isBetween(1L, 60L);
    assertThat(limited.headers().firstValue("X-RateLimit-Retry-After"))
        .hasValue(Long.toString(retryAfter));
    assertThat(limited.headers().firstValue("X-RateLimit-Remaining")).hasValue("0");
    assertThat(limited.headers().firstValue("X-RateLimit-Limit")).hasValue("2");
    assertThat(limited.headers().firstValue("RateLimit"))
        .hasValue("\"history-per-ip\";r=0;t=" + retryAfter);
    assertThat(limited.headers().firstValue("RateLimit-Policy"))
        .hasValue("\"history-per-ip\";q=2;w=60");
  }

  /** The fields of a limiter in the status, in order: one document for every door. */
  static final List<String> LIMITER_FIELDS = List.of(
      "name",
      "path",
      "scope",
      "limitKind",
      "queueKind",
      "queue",
      "rejectEarly",
      "queueDelayTarget",
      "deadlineHeader",
      "limit",
      "maxConcurrency",
      "minConcurrency",
      "maxQueue",
      "queueTimeoutMillis",
      "inFlight",
      "draining",
      "queued",
      "admitted",
      "queuedTotal",
      "rejected",
      "queueWaitP99Millis",
      "queueWaitMeanMillis",
      "queueWaitMaxMillis",
      "serviceMeanMillis",
      "shutdown",
      "cpu",
      "clusterLeases",
      "serviceMaxMillis",
      "limitSource",
      "waiting",
      "cost");

  static List<String> fields(JsonNode node) {
    List<String> names = new ArrayList<>();
    node.fieldNames().forEachRemaining(names::add);
    return names;
  }

  /**
   * One request running, one queued, one refused (queue full), two a rule allows and one it
   * refuses; returns the running and the queued request.
   */
  private List<CompletableFuture<HttpResponse<String>>> admittedQueuedRefusedAndRuled()
      throws Exception {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, PER_IP);
    Map<String, String> props = work(1, 1);
    props.put("sluice.rules.file", file.toString());
    start(props);
    CompletableFuture<HttpResponse<String>> running = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> queued = getAsync("/api/work");
    await().until(() -> work().queued() == 1);
    assertThat(get("/api/work").statusCode()).isEqualTo(429);
    assertThat(get("/api/history/1").statusCode()).isEqualTo(200);
    assertThat(get("/api/history/2").statusCode()).isEqualTo(200);
    assertThat(get("/api/history/3").statusCode()).isEqualTo(429);
    return List.of(running, queued);
  }

  @Test
  void theStatusAtSluiceCountsAdmittedQueuedRefusedAndRuleDecisions() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> held = admittedQueuedRefusedAndRuled();

    HttpResponse<String> r = get("/sluice");

    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("application/json");
    JsonNode status = JSON.readTree(r.body());
    assertThat(fields(status))
        .containsExactly("time", "enabled", "limiters", "rules", "store", "cpu", "history");
    assertThat(status.get("enabled").asBoolean()).isTrue();
    JsonNode limiter = status.get("limiters").get(0);
    assertThat(fields(limiter)).isEqualTo(LIMITER_FIELDS);
    assertThat(limiter.get("name").asText()).isEqualTo("work");
    assertThat(limiter.get("path").asText()).isEqualTo("/api/work");
    assertThat(limiter.get("inFlight").asInt()).isEqualTo(1);
    assertThat(limiter.get("queued").asInt()).isEqualTo(1);
    assertThat(limiter.get("admitted").asLong()).isEqualTo(1);
    assertThat(limiter.get("queuedTotal").asLong()).isEqualTo(1);
    assertThat(limiter.get("rejected").get("queueFull").asLong()).isEqualTo(1);
    assertThat(limiter.get("cost").get("spec").asText()).isEqualTo("1");
    assertThat(limiter.get("cost").get("largestUnits").isNull()).isTrue(); // cost=1: not tracked
    JsonNode rule = status.get("rules").get(0);
    assertThat(rule.get("id").asText()).isEqualTo("history-per-ip");
    assertThat(rule.get("allowed").asLong()).isEqualTo(2);
    assertThat(rule.get("rejected").asLong()).isEqualTo(1);
    assertThat(rule.get("keys").asLong()).isEqualTo(1);
    release.countDown();
    held.forEach(h -> assertThat(h.join().statusCode()).isEqualTo(200));
  }

  @Test
  void theMetersCountAdmittedQueuedRefusedAndRuleDecisionsUnderThePluginsNames() throws Exception {
    List<CompletableFuture<HttpResponse<String>>> held = admittedQueuedRefusedAndRuled();
    MeterRegistry m = door.registry();

    assertThat(
            m.get("sluice.concurrency.in.flight").tag("limiter", "work").gauge().value())
        .isEqualTo(1);
    assertThat(m.get("sluice.concurrency.queued").tag("limiter", "work").gauge().value())
        .isEqualTo(1);
    assertThat(m.get("sluice.concurrency.limit").tag("limiter", "work").gauge().value())
        .isEqualTo(1);
    assertThat(requests(m, "rejected", "queue_full")).isEqualTo(1);
    assertThat(decisions(m, "allowed")).isEqualTo(2);
    assertThat(decisions(m, "rejected")).isEqualTo(1);
    assertThat(m.get("sluice.rate.rules").gauge().value()).isEqualTo(1);
    // the answers the door gave instead of the application, by reason and status
    assertThat(rejections(m, "queue_full", 429)).isEqualTo(1);
    assertThat(rejections(m, "rate_limited", 429)).isEqualTo(1);
    assertThat(m.find("sluice.http.rejections").counters())
        .extracting(c -> c.getId().getTag("reason") + " " + c.getId().getTag("status"))
        .containsExactlyInAnyOrder("queue_full 429", "rate_limited 429");

    release.countDown();
    held.forEach(h -> assertThat(h.join().statusCode()).isEqualTo(200));
    await().until(() -> work().inFlight() == 0);
    assertThat(requests(m, "admitted", "immediate")).isEqualTo(1);
    assertThat(requests(m, "admitted", "queued")).isEqualTo(1);
    Timer waited = m.get("sluice.concurrency.queue.wait")
        .tags("limiter", "work", "outcome", "admitted")
        .timer();
    assertThat(waited.count()).isEqualTo(1);
    assertThat(m.get("sluice.concurrency.service.time")
            .tag("limiter", "work")
            .timer()
            .count())
        .isEqualTo(2);
  }

  /** {@code sluice.concurrency.requests}: a counter, or a function counter (admitted at once). */
  private static double requests(MeterRegistry m, String outcome, String reason) {
    var search = m.find("sluice.concurrency.requests")
        .tags("limiter", "work", "outcome", outcome, "reason", reason);
    Counter c = search.counter();
    if (c != null) {
      return c.count();
    }
    FunctionCounter f = search.functionCounter();
    assertThat(f).as("sluice.concurrency.requests %s/%s", outcome, reason).isNotNull();
    return f.count();
  }

  /** {@code sluice.http.rejections}: the door's answers of one reason and status. */
  private static double rejections(MeterRegistry m, String reason, int status) {
    return m.get("sluice.http.rejections")
        .tags("reason", reason, "status", Integer.toString(status))
        .counter()
        .count();
  }

  private static double decisions(MeterRegistry m, String outcome) {
    return m.get("sluice.rate.decisions")
        .tags("rule", "history-per-ip", "outcome", outcome)
        .functionCounter()
        .count();
  }

  @Test
  void queuedRequestsHoldNoServerThread() throws Exception {
    start(work(1, 40), null, 8);
    List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
    for (int i = 0; i < 21; i++) {
      requests.add(getAsync("/api/work"));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> work().queued() == 20);
    assertThat(work().inFlight()).isEqualTo(1);

    // more requests wait than the server has threads, and it still serves a request
    HttpResponse<String> health =
        getAsync("/health").orTimeout(5, TimeUnit.SECONDS).join();
    assertThat(health.statusCode()).isEqualTo(200);

    release.countDown();
    for (CompletableFuture<HttpResponse<String>> r : requests) {
      assertThat(r.join().statusCode()).isEqualTo(200);
    }
    await().until(() -> work().inFlight() == 0);
    assertThat(work().admitted()).isEqualTo(21);
  }
}
