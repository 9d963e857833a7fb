package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.demo.DemoSettings;
import dev.sluice.demo.TranscodeService;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** demo.limiter-peer: Netflix's limiter in front of /api/transcode instead of Sluice's, over HTTP. */
class LimiterPeerTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static JsonNode limiter(DemoClient http, String name) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no limiter " + name);
  }

  @ParameterizedTest
  @ValueSource(strings = {"netflix-gradient2", "netflix-vegas"})
  void thePeerReplacesSluicesTranscodeLimiterAndAnswers429AtItsLimit(String id) throws Exception {
    DemoSettings settings = Demo.settings(dir, Map.of(NetflixPeers.KEY, id));
    assertThat(settings.sluice())
        .doesNotContainKey("sluice.limiters.transcode.path")
        .containsEntry("sluice.limiters.rescue.path", "/api/rescue");
    try (TranscodeService service = TranscodeService.start(settings)) {
      DemoClient http = new DemoClient(service.port());
      JsonNode sluice = JSON.readTree(http.send("GET", "/sluice").body());
      assertThat(sluice.get("limiters").findValuesAsText("name")).containsExactly("rescue", id);
      assertThat(http.send("POST", "/api/transcode?cpuMillis=1").statusCode()).isEqualTo(200);

      // fill the peer's limit with jobs that only wait (no CPU), then one more is refused at once
      int limit = limiter(http, id).get("limit").asInt();
      assertThat(limit).isPositive();
      List<CompletableFuture<HttpResponse<String>>> waiting = new ArrayList<>();
      for (int i = 0; i < limit; i++) {
        waiting.add(http.sendAsync("POST", "/api/transcode?cpuMillis=1&waitMillis=3000"));
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, id).get("inFlight").asInt() == limit);
      HttpResponse<String> refused = http.send("POST", "/api/transcode?cpuMillis=1");
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Content-Type").orElseThrow())
          .startsWith("application/problem+json");
      assertThat(JSON.readTree(refused.body()).get("limiter").asText()).isEqualTo(id);
      // a bad job is refused before the peer, and takes nothing from it
      assertThat(http.send("POST", "/api/transcode?cpuMillis=0").statusCode()).isEqualTo(400);
      // Sluice's rescue limiter is still there
      assertThat(http.send("POST", "/api/rescue?cpuMillis=1").statusCode()).isEqualTo(200);

      for (CompletableFuture<HttpResponse<String>> job : waiting) {
        assertThat(job.get().statusCode()).isEqualTo(200);
      }
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> limiter(http, id).get("inFlight").asInt() == 0);
      JsonNode peer = limiter(http, id);
      assertThat(peer.get("admitted").asLong()).isEqualTo(1 + limit);
      assertThat(peer.get("peer").asBoolean()).isTrue();
      assertThat(peer.get("rejected").get("queueFull").asLong()).isEqualTo(1);
    }
  }

  @Test
  void noneLeavesSluicesLimiterAndAnUnknownPeerNamesTheKeyTheValueAndTheChoices() {
    assertThat(Demo.settings(dir, Map.of(NetflixPeers.KEY, "none")).sluice())
        .containsEntry("sluice.limiters.transcode.path", "/api/transcode");
    assertThat(
            Demo.settings(dir, Map.of(NetflixPeers.KEY, " Netflix-Gradient2 ")).sluice())
        .doesNotContainKey("sluice.limiters.transcode.path");
    assertThatThrownBy(() -> Demo.settings(dir, Map.of(NetflixPeers.KEY, "hystrix")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("demo.limiter-peer=hystrix")
        .hasMessageContaining("none|netflix-gradient2|netflix-vegas|netflix-partitioned");
  }
}
