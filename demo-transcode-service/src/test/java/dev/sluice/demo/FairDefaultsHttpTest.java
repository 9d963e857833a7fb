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

/** The demo's default transcode queue, over HTTP: fair by X-Host-Id, one place per host, classes. */
@Tag("integration")
class FairDefaultsHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private static JsonNode transcode(DemoClient http) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals("transcode")) {
        return l;
      }
    }
    throw new AssertionError("no transcode limiter");
  }

  @Test
  void aHostWithAJobWaitingIsRefusedItsSecondWhileAnotherHostAndACriticalJobStillQueue()
      throws Exception {
    // the queue's defaults, under one permit that stays one: a static limit (auto: 1 on 2 cores).
    // The default limit=cpu could admit the waiting job at its first tick, once the CPU reads
    // below its target, and nothing would queue
    try (TranscodeService service = TranscodeService.start(DemoSettings.load(
        new String[0],
        Map.of(),
        Map.of("server.port", "0", "sluice.limiters.transcode.limit", "fixed"),
        2))) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> running = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1000", "X-Host-Id", "maintenance-host-01");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> transcode(http).get("inFlight").asInt() == 1);
      CompletableFuture<HttpResponse<String>> greedyWaiting =
          http.sendAsync("POST", "/api/transcode?cpuMillis=5", "X-Host-Id", "maintenance-host-01");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> transcode(http).get("queued").asInt() == 1);

      HttpResponse<String> second =
          http.send("POST", "/api/transcode?cpuMillis=5", "X-Host-Id", "maintenance-host-01");
      assertThat(second.statusCode()).isEqualTo(429);
      assertThat(JSON.readTree(second.body()).get("reason").asText()).isEqualTo("key_cap");

      CompletableFuture<HttpResponse<String>> politeWaiting =
          http.sendAsync("POST", "/api/transcode?cpuMillis=5", "X-Host-Id", "maintenance-host-02");
      // the critical job arrives after the polite one: two requests sent at once may reach the
      // server in either order, and the waits compared below count from each one's arrival
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> transcode(http).get("queued").asInt() == 2);
      CompletableFuture<HttpResponse<String>> rescue = http.sendAsync(
          "POST",
          "/api/transcode?cpuMillis=5",
          "X-Host-Id",
          "video-rescue",
          "X-Priority",
          "critical");
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> transcode(http).get("queued").asInt() == 3);
      JsonNode waiting = transcode(http).get("waiting");
      assertThat(waiting.get("keys").asInt()).isEqualTo(3);
      assertThat(waiting.get("critical").asInt()).isEqualTo(1);
      assertThat(transcode(http).get("rejected").get("keyCap").asInt()).isEqualTo(1);

      // the critical job, queued last, is served first after the running one
      double rescueQueued =
          JSON.readTree(rescue.get().body()).get("queuedMillis").asDouble();
      double politeQueued =
          JSON.readTree(politeWaiting.get().body()).get("queuedMillis").asDouble();
      assertThat(rescueQueued).isLessThan(politeQueued);
      assertThat(running.get().statusCode()).isEqualTo(200);
      assertThat(greedyWaiting.get().statusCode()).isEqualTo(200);
    }
  }
}
