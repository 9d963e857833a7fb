package dev.sluice.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Runs the first app as its README says, from the jar its own build made (the invoker built
 * examples/first-app into target/examples), and asks it for what its README promises: a 200, a 504
 * for the jobs that waited past the queue timeout, a 429 for the one that found the queue full, and
 * a 429 from the rate rule.
 */
class FirstAppIT {

  private Process app;
  private Path log;
  private String base;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @BeforeEach
  void start() throws IOException {
    Path dir = Path.of(System.getProperty("examples.dir"), "first-app");
    Path jar = dir.resolve("target/first-app.jar");
    assertThat(jar).as("the first app's own build made its jar").exists();
    int port = freePort();
    base = "http://127.0.0.1:" + port;
    log = Files.createTempFile("first-app", ".log");
    ProcessBuilder builder = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-jar",
            jar.toString())
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile());
    builder.environment().put("PORT", Integer.toString(port));
    app = builder.start();
    await("the first app answers on " + base)
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(() -> get("/health").statusCode() == 200);
  }

  @AfterEach
  void stop() throws Exception {
    if (app != null) {
      app.destroy();
      app.waitFor();
    }
    if (log != null) {
      Files.deleteIfExists(log);
    }
  }

  @Test
  void answers200And504And429AsItsReadmeSays() throws Exception {
    HttpResponse<String> one = transcode(100);
    assertThat(one.statusCode()).as(one.body()).isEqualTo(200);

    // the README's loop: seven jobs longer than the queue timeout (5 s) at once
    List<CompletableFuture<HttpResponse<String>>> jobs = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      jobs.add(client.sendAsync(
          post("/api/transcode?millis=8000"), HttpResponse.BodyHandlers.ofString()));
    }
    await("seven answers")
        .atMost(Duration.ofSeconds(60))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> jobs.stream().allMatch(CompletableFuture::isDone));
    List<HttpResponse<String>> answers =
        jobs.stream().map(CompletableFuture::join).collect(Collectors.toList());
    Map<Integer, Long> byStatus = answers.stream()
        .collect(Collectors.groupingBy(HttpResponse::statusCode, Collectors.counting()));
    assertThat(byStatus).as(Files.readString(log)).isEqualTo(Map.of(200, 2L, 504, 4L, 429, 1L));
    HttpResponse<String> full =
        answers.stream().filter(r -> r.statusCode() == 429).findFirst().orElseThrow();
    assertThat(full.headers().firstValue("Retry-After")).isPresent();
    assertThat(full.body()).contains("\"reason\":\"queue_full\"");
    assertThat(answers.stream().filter(r -> r.statusCode() == 504).map(HttpResponse::body))
        .allMatch(body -> body.contains("\"reason\":\"queue_timeout\""));

    // the rate rule: 5 per 10 s per IP on GET /api/hello, so of 6 calls the sixth is refused
    List<Integer> hello = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      hello.add(get("/api/hello").statusCode());
    }
    assertThat(hello).containsExactly(200, 200, 200, 200, 200, 429);

    String metrics = get("/metrics").body();
    assertThat(metrics)
        .contains("sluice_concurrency_limit{limiter=\"transcode\"}")
        .contains("reason=\"queue_timeout\"")
        .contains("reason=\"rate_limited\"");
    assertThat(Files.readString(log))
        .as("a logging backend is on the class path")
        .doesNotContain("SLF4J(W): No SLF4J providers were found")
        .doesNotContain("SLF4J: No SLF4J providers were found");
  }

  private HttpResponse<String> transcode(int millis) throws Exception {
    return client.send(
        post("/api/transcode?millis=" + millis), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest post(String path) {
    return HttpRequest.newBuilder(URI.create(base + path))
        .timeout(Duration.ofSeconds(30))
        .POST(HttpRequest.BodyPublishers.ofString("video"))
        .build();
  }

  private HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}
