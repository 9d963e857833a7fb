package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The demo in its own JVM, stopped with SIGTERM while two jobs run, six wait in the queue and
 * eight clients keep sending on kept-alive connections: the queued callers are told 503 at once,
 * the running jobs finish before the process exits, and every other request is answered (200, or
 * the drain answer: 503 problem+json with {@code Retry-After}) or refused at connect; no request
 * is cut on its connection and no other 5xx is written.
 */
@Tag("integration")
class SigtermDrainProcessTest {

  private static final String JOBS = "/api/transcode";
  private static final String REFUSED = "refused at connect";

  @TempDir
  Path dir;

  private Process process;

  @AfterEach
  void kill() {
    if (process != null) {
      process.destroyForcibly();
    }
  }

  @Test
  void aSigtermUnderLoadAnswersEveryRequestAndExitsAfterTheRunningJobs() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort();
    }
    process = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx256m",
            "-Dserver.port=" + port,
            "-Dsluice.limiters.transcode.limit=fixed",
            "-Dsluice.limiters.transcode.max-concurrency=2",
            "-Dsluice.limiters.transcode.reject-early=false",
            "-Dsluice.limiters.transcode.queue=fifo",
            "-Dsluice.limiters.transcode.max-queue=6",
            "-Dsluice.limiters.transcode.queue-timeout=60s",
            "-Dsluice.shutdown.drain-timeout=30s",
            "-cp",
            System.getProperty("java.class.path"),
            TranscodeService.class.getName())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("service.log").toFile())
        .start();
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    URI base = URI.create("http://127.0.0.1:" + port);
    await()
        .atMost(Duration.ofSeconds(60))
        .ignoreExceptions()
        .until(() -> get(http, base.resolve("/health")).statusCode() == 200);

    List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
    for (int i = 0; i < 2; i++) {
      running.add(post(http, base.resolve(JOBS + "?cpuMillis=1&waitMillis=4000")));
    }
    await()
        .atMost(Duration.ofSeconds(20))
        .until(() -> status(http, base).contains("\"inFlight\":2"));
    List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      queued.add(post(http, base.resolve(JOBS + "?cpuMillis=1&waitMillis=10")));
    }
    await().atMost(Duration.ofSeconds(20)).until(() -> status(http, base).contains("\"queued\":6"));

    // eight clients in a loop on kept-alive connections, each until it is refused at connect (a
    // load balancer would send it elsewhere from then on) or the process has exited
    Map<String, Integer> outcomes = new ConcurrentHashMap<>();
    AtomicBoolean sending = new AtomicBoolean(true);
    ExecutorService clients = Executors.newFixedThreadPool(8);
    for (int i = 0; i < 8; i++) {
      clients.execute(() -> {
        String last = "";
        while (sending.get() && !last.equals(REFUSED)) {
          last = outcome(http, base.resolve(OverheadPeer.PATH));
          outcomes.merge(last, 1, Integer::sum);
        }
      });
    }
    long term = System.nanoTime();
    process.destroy(); // SIGTERM
    // the queued callers are told at once: well before the running jobs' 4 s are over
    for (CompletableFuture<HttpResponse<String>> q : queued) {
      HttpResponse<String> answer = q.get(20, TimeUnit.SECONDS);
      assertThat(answer.statusCode()).isEqualTo(503);
      assertThat(answer.headers().firstValue("Retry-After")).isPresent();
      assertThat(answer.headers().firstValue("Content-Type")).hasValue("application/problem+json");
    }
    long queuedToldMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - term);
    List<Long> jobEnds = new ArrayList<>();
    for (CompletableFuture<HttpResponse<String>> r : running) {
      assertThat(r.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      jobEnds.add(System.nanoTime());
    }
    assertThat(process.waitFor(40, TimeUnit.SECONDS)).isTrue();
    long exited = System.nanoTime();
    sending.set(false);
    clients.shutdown();
    assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();

    assertThat(queuedToldMillis).isLessThan(3_000);
    assertThat(jobEnds).allSatisfy(end -> assertThat(end).isLessThanOrEqualTo(exited));
    assertThat(outcomes.keySet())
        .as("outcomes %s", outcomes)
        .allSatisfy(o -> assertThat(o).isIn("200", "503 drain answer", REFUSED));
    assertThat(outcomes).containsKey(REFUSED); // the loop outlived the listener
  }

  /** 200, the drain answer, a refused connect, or what else happened. */
  private static String outcome(HttpClient http, URI uri) {
    try {
      HttpResponse<String> r = http.send(
          HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).build(),
          HttpResponse.BodyHandlers.ofString());
      boolean drainAnswer = r.statusCode() == 503
          && r.headers().firstValue("Retry-After").isPresent()
          && r.headers()
              .firstValue("Content-Type")
              .orElse("")
              .startsWith("application/problem+json");
      if (r.statusCode() == 200 || drainAnswer) {
        return drainAnswer ? "503 drain answer" : "200";
      }
      return r.statusCode() + " " + r.headers().firstValue("Content-Type").orElse("");
    } catch (ConnectException refused) {
      return REFUSED;
    } catch (IOException e) {
      return "cut: " + e;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "interrupted";
    }
  }

  private static HttpResponse<String> get(HttpClient http, URI uri) throws Exception {
    return http.send(
        HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String status(HttpClient http, URI base) throws Exception {
    String body = get(http, base.resolve("/sluice")).body();
    // the transcode limiter's part of the status
    return body.substring(body.indexOf("\"name\":\"transcode\""));
  }

  private static CompletableFuture<HttpResponse<String>> post(HttpClient http, URI uri) {
    return http.sendAsync(
        HttpRequest.newBuilder(uri)
            .timeout(Duration.ofSeconds(60))
            .POST(HttpRequest.BodyPublishers.noBody())
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
