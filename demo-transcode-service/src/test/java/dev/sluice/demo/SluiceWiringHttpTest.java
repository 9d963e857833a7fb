package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Sluice inside the demo, over real HTTP: one transcode at a time and one waiting place, so a long
 * job fills the limiter and the queue; the default rules file limits history per account.
 */
@Tag("integration")
class SluiceWiringHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static TranscodeService start(Map<String, String> system) {
    Map<String, String> props = new java.util.HashMap<>(system);
    props.put("server.port", "0");
    return TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2));
  }

  private static JsonNode limiter(DemoClient http, String name) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no limiter " + name);
  }

  @Test
  void fullQueueIs429WithRetryAfterAndAWaiterPastTheTimeoutIs504() throws Exception {
    try (TranscodeService service = start(Map.of(
        "sluice.limiters.transcode.limit", "fixed",
        "sluice.limiters.transcode.max-concurrency", "1",
        "sluice.limiters.transcode.reject-early", "false",
        "sluice.limiters.transcode.max-queue", "1",
        "sluice.limiters.transcode.queue-timeout", "2s"))) {
      DemoClient http = new DemoClient(service.port());
      // holds the only permit for 6 s of storage wait (no CPU, so a busy machine does not shorten
      // or stretch it), far longer than the waiter's 2 s; 2 s leaves a loaded machine time to send
      // the next request while the waiter still holds the only queue place
      CompletableFuture<HttpResponse<String>> running =
          http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=6000");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, "transcode").get("inFlight").asInt() == 1);
      CompletableFuture<HttpResponse<String>> waiting =
          http.sendAsync("POST", "/api/transcode?cpuMillis=5");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, "transcode").get("queued").asInt() == 1);

      HttpResponse<String> full = http.send("POST", "/api/transcode?cpuMillis=5");
      assertThat(full.statusCode()).isEqualTo(429);
      assertThat(full.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      assertThat(Integer.parseInt(full.headers().firstValue("Retry-After").orElseThrow()))
          .isPositive();
      assertThat(JSON.readTree(full.body()).get("limiter").asText()).isEqualTo("transcode");

      // a bad job is refused before the limiter: 400, not 429, even with the queue full
      assertThat(http.send("POST", "/api/transcode?cpuMillis=abc").statusCode()).isEqualTo(400);
      // health is never limited
      assertThat(http.send("GET", "/health").statusCode()).isEqualTo(200);
      // the rescue lane has its own limiter: not blocked by the full transcode queue
      assertThat(http.send("POST", "/api/rescue?cpuMillis=5").statusCode()).isEqualTo(200);

      HttpResponse<String> timedOut = waiting.get();
      assertThat(timedOut.statusCode()).isEqualTo(504);
      assertThat(JSON.readTree(timedOut.body()).get("limiter").asText()).isEqualTo("transcode");
      HttpResponse<String> done = running.get();
      assertThat(done.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(done.body()).get("waitMillis").asInt()).isEqualTo(6000);

      JsonNode transcode = limiter(http, "transcode");
      assertThat(transcode.get("rejected").get("queueFull").asLong()).isEqualTo(1);
      assertThat(transcode.get("rejected").get("queueTimeout").asLong()).isEqualTo(1);
      assertThat(transcode.get("inFlight").asInt()).isZero();
      assertThat(transcode.get("waiting").get("normal").asInt())
          .as("queued per class")
          .isZero();
      assertThat(transcode.get("rejected").get("displaced").asLong()).isZero();
    }
  }

  @Test
  void aWaitingJobKeepsItsPermitUntilItsWaitAndWorkAreDone() throws Exception {
    try (TranscodeService service = start(Map.of(
        "sluice.limiters.transcode.limit",
        "fixed",
        "sluice.limiters.transcode.max-concurrency",
        "1"))) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> reading =
          http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=1500");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, "transcode").get("inFlight").asInt() == 1);
      // queued, then waiting: two suspensions of one request (the limiter's, then the job's own)
      CompletableFuture<HttpResponse<String>> next =
          http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=100");
      // the permit is held through the wait: the next job queues behind the one reading footage
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, "transcode").get("queued").asInt() == 1);
      HttpResponse<String> first = reading.get();
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(first.body()).get("serviceMillis").asDouble())
          .isGreaterThanOrEqualTo(1500);
      HttpResponse<String> second = next.get();
      assertThat(second.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(second.body()).get("queuedMillis").asDouble()).isPositive();
      assertThat(JSON.readTree(second.body()).get("serviceMillis").asDouble())
          .isGreaterThanOrEqualTo(100);
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, "transcode").get("inFlight").asInt() == 0);
      assertThat(limiter(http, "transcode").get("admitted").asLong()).isEqualTo(2);
    }
  }

  @Test
  void historyIsLimitedPerAccountByTheDefaultRulesAndSluiceListsLimitersAndRules()
      throws Exception {
    try (TranscodeService service = start(Map.of())) {
      DemoClient http = new DemoClient(service.port());
      HttpResponse<String> first = http.send("GET", "/api/history/1", "X-Account-Id", "greedy");
      assertThat(first.statusCode()).isEqualTo(200);
      assertThat(first.headers().firstValue("RateLimit-Policy").orElseThrow())
          .contains("history-per-account");
      assertThat(first.headers().firstValue("X-RateLimit-Limit")).isPresent();

      // burst 20 at 10/s: the 20 tokens run out long before a few dozen quick requests end
      HttpResponse<String> rejected = null;
      int admitted = 1;
      for (int i = 0; i < 200 && rejected == null; i++) {
        HttpResponse<String> r = http.send("GET", "/api/history/1", "X-Account-Id", "greedy");
        if (r.statusCode() == 429) {
          rejected = r;
        } else {
          assertThat(r.statusCode()).isEqualTo(200);
          admitted++;
        }
      }
      assertThat(rejected).isNotNull();
      assertThat(admitted).isGreaterThanOrEqualTo(20);
      assertThat(rejected.headers().firstValue("Retry-After")).isPresent();
      assertThat(rejected.headers().firstValue("RateLimit").orElseThrow())
          .contains("history-per-account");
      assertThat(rejected.headers().firstValue("X-RateLimit-Remaining")).contains("0");
      assertThat(JSON.readTree(rejected.body()).get("rule").asText())
          .isEqualTo("history-per-account");
      // another account has its own quota
      assertThat(http.send("GET", "/api/history/1", "X-Account-Id", "patient").statusCode())
          .isEqualTo(200);

      JsonNode sluice = JSON.readTree(http.send("GET", "/sluice").body());
      assertThat(sluice.get("enabled").asBoolean()).isTrue();
      assertThat(sluice.get("limiters").findValuesAsText("name"))
          .containsExactly("rescue", "transcode");
      assertThat(sluice.get("store").isNull()).as("in memory: no shared store").isTrue();
      JsonNode transcode = limiter(http, "transcode");
      // the jar's default: a CPU-target limit at 70 % between 1 and 8 x cores, rejecting early
      JsonNode source = transcode.get("limitSource");
      assertThat(source.get("strategy").asText()).isEqualTo("cpu");
      assertThat(transcode.get("limit").asInt()).isPositive();
      assertThat(source.get("minLimit").asInt()).isEqualTo(1);
      assertThat(source.get("maxLimit").asInt()).isEqualTo(16); // auto on 2 cores
      assertThat(source.get("targetCpu").asDouble()).isEqualTo(0.7);
      assertThat(source.get("targetServiceMillis").isNull())
          .isTrue(); // a latency input: not for cpu
      assertThat(transcode.get("limitKind").asText()).isEqualTo("cpu");
      assertThat(transcode.get("queueKind").asText()).isEqualTo("fair");
      assertThat(limiter(http, "rescue").get("limitSource").get("strategy").asText())
          .isEqualTo("fixed");
      assertThat(transcode.get("maxQueue").asInt()).isEqualTo(40);
      assertThat(transcode.get("queueTimeoutMillis").asLong()).isEqualTo(10_000);
      JsonNode rule = sluice.get("rules").get(0);
      assertThat(rule.get("id").asText()).isEqualTo("history-per-account");
      assertThat(rule.get("actor").asText()).isEqualTo("account");
      assertThat(rule.get("limit").asLong()).isEqualTo(10);
      assertThat(rule.get("burst").asLong()).isEqualTo(20);
      assertThat(rule.get("allowed").asLong()).isEqualTo(admitted + 1); // and "patient"
      assertThat(rule.get("rejected").asLong()).isEqualTo(1);
      // the live page is on in the demo, its data beside it
      assertThat(http.send("GET", "/sluice/dashboard").statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(http.send("GET", "/sluice/dashboard/data").body())
              .get("rules")
              .get(0)
              .get("rejected")
              .asLong())
          .isEqualTo(1);
    }
  }

  @Test
  void theLyftRulesInTheJarLimitHistoryToFiveAMinutePerAccount() throws Exception {
    try (TranscodeService service =
        start(Map.of("sluice.rules.file", "classpath:ratelimits-lyft.yaml"))) {
      DemoClient http = new DemoClient(service.port());
      // fixed windows are floor(System.nanoTime() / 1 min) in this JVM: start well inside one, so
      // that no window edge falls among these few requests and refills the account's five
      long minute = Duration.ofMinutes(1).toNanos();
      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> Math.floorMod(System.nanoTime(), minute)
              < minute - Duration.ofSeconds(15).toNanos());
      for (int i = 0; i < 5; i++) {
        assertThat(http.send("GET", "/api/history/1", "X-Account-Id", "alice").statusCode())
            .as("request %d", i + 1)
            .isEqualTo(200);
      }
      HttpResponse<String> sixth = http.send("GET", "/api/history/2", "X-Account-Id", "alice");
      assertThat(sixth.statusCode()).isEqualTo(429);
      assertThat(JSON.readTree(sixth.body()).get("rule").asText())
          .isEqualTo("account:/api/history/*:1m");
      assertThat(Integer.parseInt(sixth.headers().firstValue("Retry-After").orElseThrow()))
          .isBetween(1, 60);
      // another account has its own five; other paths are not limited by the rule
      assertThat(http.send("GET", "/api/history/1", "X-Account-Id", "bob").statusCode())
          .isEqualTo(200);
      assertThat(http.send("GET", "/health").statusCode()).isEqualTo(200);
      JsonNode rule =
          JSON.readTree(http.send("GET", "/sluice").body()).get("rules").get(0);
      assertThat(rule.get("limit").asLong()).isEqualTo(5);
      assertThat(rule.get("periodMillis").asLong()).isEqualTo(60_000);
      assertThat(rule.get("algorithm").asText()).isEqualTo("fixed-window");
    }
  }

  @Test
  void disabledSluiceRunsTheSameEndpointsWithoutLimiterOrRules() throws Exception {
    try (TranscodeService service = start(Map.of("sluice.enabled", "false"))) {
      DemoClient http = new DemoClient(service.port());
      for (int i = 0; i < 40; i++) {
        HttpResponse<String> r = http.send("GET", "/api/history/1", "X-Account-Id", "greedy");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("RateLimit-Policy")).isEmpty();
      }
      assertThat(http.send("POST", "/api/transcode?cpuMillis=5").statusCode()).isEqualTo(200);
      assertThat(http.send("POST", "/api/transcode?cpuMillis=0").statusCode()).isEqualTo(400);
      JsonNode sluice = JSON.readTree(http.send("GET", "/sluice").body());
      assertThat(sluice.get("enabled").asBoolean()).isFalse();
      assertThat(sluice.get("limiters")).isEmpty();
      assertThat(sluice.get("rules")).isEmpty();
    }
  }
}
