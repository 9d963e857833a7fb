package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.http.DashboardPage;
import java.net.http.HttpResponse;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The contract at the servlet filter in any container, and what only the filter exposes: {@link
 * SluiceFilter#shutdown()} (the plugin stops admitting when Javalin stops, see its DrainTest).
 */
abstract class ServletFilterContract extends HttpDoorContract {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aStoppingDoorAnswers503ShuttingDownAndLetsTheRunningRequestFinish() throws Exception {
    start(work(1, 1));
    CompletableFuture<HttpResponse<String>> running = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    CompletableFuture<HttpResponse<String>> queued = getAsync("/api/work");
    await().until(() -> work().queued() == 1);

    door.stopAdmitting();

    HttpResponse<String> refused = get("/api/work");
    assertThat(refused.statusCode()).isEqualTo(503);
    assertThat(refused.headers().firstValue("Retry-After").map(Long::parseLong))
        .hasValueSatisfying(s -> assertThat(s).isGreaterThanOrEqualTo(1));
    JsonNode body = problem(refused);
    assertThat(body.get("type").asText()).isEqualTo("https://sluice.dev/problems/shutting-down");
    assertThat(body.get("reason").asText()).isEqualTo("shutting_down");
    HttpResponse<String> wasQueued = queued.join();
    assertThat(wasQueued.statusCode()).isEqualTo(503);
    assertThat(problem(wasQueued).get("type").asText())
        .isEqualTo("https://sluice.dev/problems/shutting-down");
    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
  }

  @Test
  void theStatusAndTheLivePagePassALimiterThatGuardsEveryPath() throws Exception {
    Map<String, String> props = new HashMap<>();
    props.put("sluice.limiters.work.path", "/**");
    props.put("sluice.limiters.work.max-concurrency", "1");
    props.put("sluice.limiters.work.max-queue", "0");
    start(props);
    CompletableFuture<HttpResponse<String>> running = getAsync("/api/work");
    await().until(() -> work().inFlight() == 1);
    assertThat(get("/api/history/1").statusCode()).isEqualTo(429); // the limiter is full

    HttpResponse<String> status = get("/sluice");
    HttpResponse<String> page = get("/sluice/dashboard");
    HttpResponse<String> data = get("/sluice/dashboard/data");

    assertThat(status.statusCode()).isEqualTo(200);
    assertThat(
            JSON.readTree(status.body()).get("limiters").get(0).get("inFlight").asInt())
        .isEqualTo(1);
    assertThat(page.statusCode()).isEqualTo(200);
    assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
    assertThat(page.headers().firstValue("Cache-Control")).hasValue("no-store");
    assertThat(page.body()).isEqualTo(DashboardPage.html()); // the plugin's page, byte for byte
    assertThat(data.statusCode()).isEqualTo(200);
    JsonNode live = JSON.readTree(data.body());
    assertThat(live.get("limiters").get(0).get("name").asText()).isEqualTo("work");
    // the page is in service: its series are kept, and the status carries them
    assertThat(live.get("history").get("resolutionMillis").asLong()).isEqualTo(1000);
    assertThat(live.get("history").get("limiters").has("work")).isTrue();
    assertThat(live.get("cpu").isObject()).isTrue();
    assertThat(work().admitted()).isEqualTo(1); // none of them took a permit
    assertThat(get("/sluice/dashboard/other").statusCode()).isEqualTo(404);
    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
  }
}
