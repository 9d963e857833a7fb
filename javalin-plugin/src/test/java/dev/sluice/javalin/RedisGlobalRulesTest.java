package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.config.SluiceProperties;
import dev.sluice.redis.RedisServer;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end with a real {@code redis-server} (limiter-redis on the test classpath only, found by
 * ServiceLoader): two Javalin apps share one global rule through Redis; when Redis dies they keep
 * answering, each at its local share less what it admitted through Redis in the last period (so
 * the outage costs at most one share beyond the limit); when Redis loses its counts, likewise.
 */
@Tag("integration")
class RedisGlobalRulesTest {

  private static final int LIMIT = 6;
  private static final int NODES = 2;
  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  @Test
  void twoNodesShareAGlobalLimitAndFallBackToTheirShareWhenRedisDies() throws IOException {
    try (RedisServer redis = RedisServer.start()) {
      SluiceProperties props = properties(redis);
      try (TestServer a = node(props);
          TestServer b = node(props)) {
        Map<TestServer, Long> admittedBefore = useTheLimit(a, b);

        redis.kill();

        long duringOutage = 0;
        for (TestServer node : List.of(a, b)) {
          List<Integer> degraded = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = node.get("/api/item");
            degraded.add(r.statusCode());
            if (r.statusCode() == 429) {
              assertThat(r.headers().firstValue("Retry-After")).isPresent();
            }
          }
          assertThat(degraded).as("answers of one node while Redis is down").isSubsetOf(200, 429);
          // its share (LIMIT / NODES), less what it admitted through Redis in the last period
          long admitted = degraded.stream().filter(s -> s == 200).count();
          assertThat(admitted)
              .as("a node's share while Redis is down")
              .isEqualTo(Math.max(0, LIMIT / NODES - admittedBefore.get(node)));
          duringOutage += admitted;
        }
        assertThat(duringOutage)
            .as("beyond the limit: at most one share")
            .isLessThanOrEqualTo(LIMIT / NODES);
        for (TestServer node : List.of(a, b)) {
          // each of its 5 answers was decided without Redis (the breaker may still count it up:
          // 5 failed calls after 10 good ones are a third of its window, under its 50%)
          JsonNode store = JSON.readTree(node.plugin.statusJson()).get("store");
          assertThat(store.get("degradedDecisions").asLong()).isEqualTo(5);
        }
      }
    }
  }

  @Test
  void aFlushOfRedisCostsAtMostOneShareBeyondTheLimit() throws IOException {
    try (RedisServer redis = RedisServer.start()) {
      SluiceProperties props = properties(redis);
      try (TestServer a = node(props);
          TestServer b = node(props)) {
        Map<TestServer, Long> admittedBefore = useTheLimit(a, b);

        redis.command("FLUSHALL");

        long afterFlush = 0;
        for (TestServer node : List.of(a, b)) {
          List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            sent.add(node.getAsync("/api/item"));
          }
          long admitted = admitted(sent);
          // nothing is decided on the emptied state: the node charges what it admitted and
          // decides on its share, less those admissions, until every node has charged its own
          assertThat(admitted)
              .as("a node's answers just after Redis lost its counts")
              .isEqualTo(Math.max(0, LIMIT / NODES - admittedBefore.get(node)));
          afterFlush += admitted;
        }
        assertThat(afterFlush)
            .as("beyond the limit: at most one share")
            .isLessThanOrEqualTo(LIMIT / NODES);
        for (TestServer node : List.of(a, b)) {
          // the settling time is 2 x 500 ms + 2 x the 5 s timeout: still in force here
          JsonNode store = JSON.readTree(node.plugin.statusJson()).get("store");
          assertThat(store.get("state").asText()).isEqualTo("settling");
          assertThat(store.get("lostStates").asLong()).isEqualTo(1);
          assertThat(store.get("description").asText()).contains("lost its counts");
        }
      }
    }
  }

  /** One global rule of {@link #LIMIT} an hour: nothing refills while the test runs. */
  private SluiceProperties properties(RedisServer redis) throws IOException {
    Path rules = dir.resolve("rules.yaml");
    Files.writeString(
        rules,
        String.join(
            "\n",
            "rules:",
            "  - id: api-global",
            "    resource: /api/**",
            "    actor: all",
            "    limit: " + LIMIT,
            "    unit: hour",
            "    scope: global",
            ""));
    return SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of(
            "sluice.rules.file", rules.toString(),
            "sluice.redis.uri", redis.uri().toString(),
            // generous: a call that misses the timeout is decided locally, which could let one
            // extra
            // request through on a loaded machine
            "sluice.redis.timeout", "5s",
            "sluice.redis.expected-nodes", Integer.toString(NODES),
            "sluice.redis.on-failure", "local"))
        .build();
  }

  /** Both nodes send 10 requests at once; together they admit exactly the limit. */
  private static Map<TestServer, Long> useTheLimit(TestServer a, TestServer b) {
    List<CompletableFuture<HttpResponse<String>>> sentA = new ArrayList<>();
    List<CompletableFuture<HttpResponse<String>>> sentB = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      sentA.add(a.getAsync("/api/item"));
      sentB.add(b.getAsync("/api/item"));
    }
    Map<TestServer, Long> admitted = Map.of(a, admitted(sentA), b, admitted(sentB));
    assertThat(admitted.get(a) + admitted.get(b)).isEqualTo(LIMIT);
    return admitted;
  }

  private static long admitted(List<CompletableFuture<HttpResponse<String>>> sent) {
    List<Integer> statuses = sent.stream().map(f -> f.join().statusCode()).toList();
    assertThat(statuses).isSubsetOf(200, 429);
    return statuses.stream().filter(s -> s == 200).count();
  }

  private static TestServer node(SluiceProperties props) {
    return TestServer.start(
        cfg -> cfg.properties(props),
        (app, plugin) -> app.routes.get("/api/item", ctx -> ctx.result("item")));
  }
}
