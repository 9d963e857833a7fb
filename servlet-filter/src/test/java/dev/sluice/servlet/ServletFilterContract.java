package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The contract at the servlet filter in any container, and what only the filter exposes: {@link
 * SluiceFilter#shutdown()} (the plugin stops admitting when Javalin stops, see its DrainTest).
 */
abstract class ServletFilterContract extends HttpDoorContract {

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
}
