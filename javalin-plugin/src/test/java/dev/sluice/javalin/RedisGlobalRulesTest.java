package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

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
 * answering, each at its local share.
 */
@Tag("integration")
class RedisGlobalRulesTest {

  private static final int LIMIT = 6;
  private static final int NODES = 2;

  @TempDir Path dir;

  @Test
  void twoNodesShareAGlobalLimitAndFallBackToTheirShareWhenRedisDies() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    // an hour-long token bucket: nothing refills while the test runs, on Redis or on the node
    Files.writeString(rules, String.join("\n", "rules:", "  - id: api-global",
        "    resource: /api/**", "    actor: all", "    limit: " + LIMIT, "    unit: hour",
        "    scope: global", ""));
    try (RedisServer redis = RedisServer.start()) {
      SluiceProperties props = SluiceProperties.builder().env(Map.of()).system(Map.of(
          "sluice.rules.file", rules.toString(),
          "sluice.redis.uri", redis.uri().toString(),
          // generous: a call that misses the timeout is decided locally, which could let one extra
          // request through on a loaded machine
          "sluice.redis.timeout", "1s",
          "sluice.redis.expected-nodes", Integer.toString(NODES),
          "sluice.redis.on-failure", "local")).build();
      try (TestServer a = node(props); TestServer b = node(props)) {
        List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
          sent.add(a.getAsync("/api/item"));
          sent.add(b.getAsync("/api/item"));
        }
        List<Integer> statuses = sent.stream().map(f -> f.join().statusCode()).toList();
        assertThat(statuses).containsOnly(200, 429);
        assertThat(statuses).filteredOn(s -> s == 200).hasSize(LIMIT);

        redis.kill();

        for (TestServer node : List.of(a, b)) {
          List<Integer> degraded = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            HttpResponse<String> r = node.get("/api/item");
            degraded.add(r.statusCode());
            if (r.statusCode() == 429) {
              assertThat(r.headers().firstValue("Retry-After")).isPresent();
            }
          }
          assertThat(degraded).as("answers of one node while Redis is down").containsOnly(200, 429);
          assertThat(degraded).filteredOn(s -> s == 200).hasSize(LIMIT / NODES);
        }
      }
    }
  }

  private static TestServer node(SluiceProperties props) {
    return TestServer.start(cfg -> cfg.properties(props),
        (app, plugin) -> app.routes.get("/api/item", ctx -> ctx.result("item")));
  }
}
