package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.redis.RedisServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;

/**
 * The Grafana dashboard and the Prometheus alert rules in ops/ read only what the service really
 * exports: every metric name, every label they match, group or join on, and every label value they
 * match exactly appear in a scrape of the demo's /metrics after a little load that makes each kind
 * of answer (admitted, queue full, timed out in the queue, rejected on a predicted wait, a rate
 * rule's rejection and a shadow rule's), with a real redis-server behind a global limiter.
 */
@Tag("integration")
class OpsMetricsScrapeTest {

  private static final Path OPS = Path.of("..", "ops");
  private static final Path DASHBOARD = OPS.resolve("grafana/sluice-dashboard.json");
  private static final Path ALERTS = OPS.resolve("prometheus/sluice-alerts.yml");
  /** Labels Prometheus adds to every series it scrapes: never in the service's own text. */
  private static final Set<String> TARGET_LABELS = Set.of("job", "instance");

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void theDashboardAndTheAlertsReadTheSluiceMetricsOfTheRightShape() throws IOException {
    Map<String, PromQl> queries = queries();
    Set<String> metrics = new TreeSet<>();
    queries.values().forEach(q -> q.selectors.forEach(s -> metrics.add(s.metric())));
    assertThat(metrics)
        .contains(
            "sluice_concurrency_requests_total",
            "sluice_concurrency_queue_wait_seconds_bucket",
            "sluice_concurrency_in_flight",
            "sluice_concurrency_limit",
            "sluice_concurrency_cpu",
            "sluice_concurrency_cpu_target",
            "sluice_store_state",
            "sluice_rate_decisions_total")
        .doesNotContainNull();
    assertThat(queries.keySet()).anyMatch(k -> k.startsWith("alert SluiceQueueTimeouts"));
  }

  @Test
  void everyMetricAndLabelTheyUseIsInARealScrapeOfTheDemoUnderLoad(@TempDir Path dir)
      throws Exception {
    Map<String, PromQl> queries = queries();
    Path rules = dir.resolve("ratelimits.yaml");
    Files.writeString(rules, """
        rules:
          - id: history-per-account
            resource: /api/history/*
            method: GET
            actor: account
            limit: 10
            unit: second
            burst: 20
          - id: history-shadow
            resource: /api/history/*
            actor: all
            limit: 1
            unit: second
            shadow: true
        """);
    try (RedisServer redis = RedisServer.start()) {
      Map<String, String> props = new HashMap<>();
      props.put("server.port", "0");
      props.put("sluice.redis.uri", redis.uri().toString());
      props.put("sluice.rules.file", rules.toString());
      // one permit, reject-early: a caller far back in the line is told at once (predicted_wait)
      props.put("sluice.limiters.transcode.limit", "fixed");
      props.put("sluice.limiters.transcode.max-concurrency", "1");
      props.put("sluice.limiters.transcode.max-queue", "32");
      props.put("sluice.limiters.transcode.queue-timeout", "500ms");
      props.put("sluice.limiters.transcode.reject-early", "true");
      props.put("sluice.limiters.transcode.queue", "fifo"); // one line: no per-host cap (key_cap)
      props.put("sluice.limiters.transcode.max-queue-per-key", "0");
      // one permit, one place in the queue, no reject-early: queue_full and queue_timeout
      props.put("sluice.limiters.rescue.max-concurrency", "1");
      props.put("sluice.limiters.rescue.max-queue", "1");
      props.put("sluice.limiters.rescue.queue-timeout", "3s");
      // a global limiter: permits as leases in Redis (the cluster's leases gauge)
      props.put("sluice.limiters.history.path", "/api/history/*");
      props.put("sluice.limiters.history.scope", "global");
      props.put("sluice.limiters.history.max-concurrency", "8");
      props.put("sluice.limiters.history.max-queue", "8");
      try (TranscodeService service =
          TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2))) {
        DemoClient http = new DemoClient(service.port());
        load(http);
        await()
            .atMost(Duration.ofSeconds(10))
            .untilAsserted(() -> assertThat(missing(queries, scrape(http))).isEmpty());
      }
    }
  }

  private static void load(DemoClient http) throws Exception {
    // rate rules: quick requests until the account's burst of 20 runs out (on a slow machine the
    // bucket refills meanwhile, so a fixed count may never get there); the shadow rule of 1/s
    // would reject the 2nd
    int rejected = 0;
    for (int i = 0; i < 1000 && rejected == 0; i++) {
      if (http.send("GET", "/api/history/" + i, "X-Account-Id", "ops").statusCode() == 429) {
        rejected++;
      }
    }
    assertThat(rejected).as("a request over the account's rate").isOne();

    // rescue: one running, one waiting past its timeout (504), one finding the queue full (429);
    // the 3 s timeout leaves a loaded machine time to send the third while the second still waits
    CompletableFuture<HttpResponse<String>> running =
        http.sendAsync("POST", "/api/rescue?cpuMillis=1&waitMillis=6000");
    awaitLimiter(http, "rescue", "inFlight", 1);
    CompletableFuture<HttpResponse<String>> waiting =
        http.sendAsync("POST", "/api/rescue?cpuMillis=1");
    awaitLimiter(http, "rescue", "queued", 1);
    assertThat(http.send("POST", "/api/rescue?cpuMillis=1").statusCode()).isEqualTo(429);
    assertThat(waiting.get().statusCode()).isEqualTo(504);

    // transcode: a service time of 30 ms or more learnt from the 32 jobs the prediction needs,
    // then the permit held; a caller with 16 or more ahead of it would wait past the 500 ms timeout
    // and is answered at once
    for (int i = 0; i < 32; i++) {
      assertThat(http.send("POST", "/api/transcode?cpuMillis=1&waitMillis=30").statusCode())
          .isEqualTo(200);
    }
    CompletableFuture<HttpResponse<String>> holding =
        http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=2000");
    awaitLimiter(http, "transcode", "inFlight", 1);
    List<CompletableFuture<HttpResponse<String>>> behind = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      behind.add(http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=30"));
    }
    for (CompletableFuture<HttpResponse<String>> f : behind) {
      assertThat(f.get().statusCode()).isIn(200, 429, 504);
    }
    assertThat(holding.get().statusCode()).isEqualTo(200);
    assertThat(running.get().statusCode()).isEqualTo(200);
  }

  private static void awaitLimiter(DemoClient http, String name, String field, int value) {
    await()
        .atMost(Duration.ofSeconds(10))
        .until(() -> limiter(http, name).get(field).asInt() == value);
  }

  private static JsonNode limiter(DemoClient http, String name) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no limiter " + name);
  }

  /** Every query of the dashboard and the alert rules, by where it is. */
  private static Map<String, PromQl> queries() throws IOException {
    Map<String, PromQl> queries = new TreeMap<>();
    JsonNode dashboard = JSON.readTree(DASHBOARD.toFile());
    for (JsonNode panel : dashboard.get("panels")) {
      for (JsonNode target : panel.path("targets")) {
        queries.put(
            "panel '" + panel.get("title").asText() + "' " + target.get("refId").asText(),
            new PromQl(target.get("expr").asText()));
      }
    }
    for (JsonNode variable : dashboard.path("templating").path("list")) {
      if (!"query".equals(variable.path("type").asText())) {
        continue; // the datasource variable lists data sources, not series
      }
      queries.put(
          "variable " + variable.get("name").asText(),
          PromQl.labelValues(variable.get("definition").asText()));
    }
    Map<String, Object> alerts = new Yaml().load(Files.readString(ALERTS));
    for (Object g : (List<?>) alerts.get("groups")) {
      for (Object r : (List<?>) ((Map<?, ?>) g).get("rules")) {
        Map<?, ?> rule = (Map<?, ?>) r;
        queries.put("alert " + rule.get("alert"), new PromQl((String) rule.get("expr")));
      }
    }
    assertThat(queries).hasSizeGreaterThan(20);
    return queries;
  }

  /** Series of the scrape: metric name -> label -> values seen. */
  private static Map<String, Map<String, Set<String>>> scrape(DemoClient http) throws Exception {
    HttpResponse<String> response = http.send("GET", "/metrics");
    assertThat(response.statusCode()).isEqualTo(200);
    Pattern line = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)(\\{(.*)\\})?\\s+\\S+.*$");
    Pattern label = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\"");
    Map<String, Map<String, Set<String>>> series = new TreeMap<>();
    for (String text : response.body().split("\n")) {
      Matcher m = line.matcher(text);
      if (text.startsWith("#") || !m.matches()) {
        continue;
      }
      Map<String, Set<String>> labels = series.computeIfAbsent(m.group(1), k -> new TreeMap<>());
      if (m.group(3) != null) {
        Matcher l = label.matcher(m.group(3));
        while (l.find()) {
          labels.computeIfAbsent(l.group(1), k -> new TreeSet<>()).add(l.group(2));
        }
      }
    }
    return series;
  }

  /** What the queries read that the scrape does not have, one line each. */
  private static List<String> missing(
      Map<String, PromQl> queries, Map<String, Map<String, Set<String>>> scrape) {
    List<String> missing = new ArrayList<>();
    queries.forEach((where, q) -> {
      Set<String> labelsOfItsMetrics = new TreeSet<>(TARGET_LABELS);
      for (PromQl.Selector s : q.selectors) {
        Map<String, Set<String>> labels = scrape.get(s.metric());
        if (labels == null) {
          missing.add(where + ": metric " + s.metric());
          continue;
        }
        labelsOfItsMetrics.addAll(labels.keySet());
        for (PromQl.LabelMatcher m : s.matchers()) {
          Set<String> values = labels.get(m.label());
          if (values == null) {
            missing.add(where + ": label " + m.label() + " of " + s.metric());
          } else if (m.op().equals("=") && !values.contains(m.value())) {
            missing.add(where + ": " + s.metric() + "{" + m.label() + "=\"" + m.value() + "\"}"
                + " (seen: " + values + ")");
          }
        }
      }
      for (String label : q.groupingLabels) {
        if (!labelsOfItsMetrics.contains(label)) {
          missing.add(where + ": grouping label " + label);
        }
      }
    });
    return missing;
  }
}
