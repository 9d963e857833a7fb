package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ffmpeg} engine behind the limiter, with a real ffmpeg: a job rejected while queued, a
 * client that hangs up during its upload or its transcode, and a service that stops while a
 * transcode runs each leave no ffmpeg process and no temporary file behind (counted as this JVM's
 * descendant processes and the engine's temp folder).
 */
@Tag("integration")
class FfmpegEngineLifecycleTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient CLIENT = HttpClient.newHttpClient();
  private static final Duration SECONDS = Duration.ofSeconds(10);
  /**
   * How soon a hang-up or a stop must end a transcode: far less than the long clip takes to
   * transcode (about 20 s on the 2-core machine, several on a fast one), so a job that merely ran
   * to its end cannot pass for one that was ended.
   */
  private static final Duration PROMPTLY = Duration.ofSeconds(3);

  @TempDir
  static Path dir;

  private static byte[] clip;
  /** Ten seconds to 720p with the slowest preset on one thread: a transcode that runs long. */
  private static byte[] longClip;

  @TempDir
  Path jobs;

  @BeforeAll
  static void makeClip() throws Exception {
    Ffmpeg.require();
    clip = Files.readAllBytes(Ffmpeg.clip(dir, 2, "640x360"));
    longClip = Files.readAllBytes(Ffmpeg.clip(dir, 10, "640x360"));
  }

  /** One transcode at a time and one waiting place; ffmpeg's slowest preset, so a 720p job runs for seconds. */
  private TranscodeService start(String... more) {
    Map<String, String> props = new HashMap<>(Map.of(
        "server.port", "0",
        "demo.engine", "ffmpeg",
        "demo.ffmpeg.temp-dir", jobs.toString(),
        "demo.ffmpeg.preset", "veryslow",
        "sluice.limiters.transcode.limit", "fixed",
        "sluice.limiters.transcode.max-concurrency", "1",
        "sluice.limiters.transcode.reject-early", "false",
        "sluice.limiters.transcode.max-queue", "1",
        "sluice.limiters.transcode.queue-timeout", "1s"));
    for (int i = 0; i < more.length; i += 2) {
      props.put(more[i], more[i + 1]);
    }
    return TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2));
  }

  private static JsonNode transcodeLimiter(TranscodeService service) throws Exception {
    for (JsonNode l : JSON.readTree(
            new DemoClient(service.port()).send("GET", "/sluice").body())
        .get("limiters")) {
      if (l.get("name").asText().equals("transcode")) {
        return l;
      }
    }
    throw new AssertionError("no transcode limiter");
  }

  /** A client on a plain socket: sends the request line, headers and {@code bytes} of the body, then may hang up. */
  private static Socket upload(TranscodeService service, String path, byte[] body, int bytes)
      throws Exception {
    Socket socket = new Socket(InetAddress.getLoopbackAddress(), service.port());
    OutputStream out = socket.getOutputStream();
    out.write(("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: video/mp4\r\n"
            + "Content-Length: " + body.length + "\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));
    out.write(body, 0, bytes);
    out.flush();
    return socket;
  }

  private static CompletableFuture<HttpResponse<String>> send(
      TranscodeService service, String path) {
    return send(service, path, clip);
  }

  private static CompletableFuture<HttpResponse<String>> send(
      TranscodeService service, String path, byte[] footage) {
    return CLIENT.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + service.port() + path))
            .header("Content-Type", "video/mp4")
            .POST(HttpRequest.BodyPublishers.ofByteArray(footage))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private void awaitNothingLeft(TranscodeService service) {
    awaitNothingLeft(service, SECONDS);
  }

  private void awaitNothingLeft(TranscodeService service, Duration within) {
    await().atMost(within).untilAsserted(() -> {
      assertThat(Ffmpeg.children()).isEmpty();
      assertThat(Ffmpeg.files(jobs)).isEmpty();
      assertThat(transcodeLimiter(service).get("inFlight").asInt()).isZero();
    });
  }

  @Test
  // the open connection is the point: it holds the permit, or hangs up when closed
  @SuppressWarnings("try")
  void aJobRejectedWhileQueuedStartsNoProcessAndWritesNoFileAndAnUploadCutShortIsCleanedUp()
      throws Exception {
    try (TranscodeService service = start()) {
      // holds the only permit: admitted, it reads its body, which stops halfway
      try (Socket holder = upload(service, "/api/transcode?height=240", clip, clip.length / 2)) {
        await()
            .atMost(SECONDS)
            .until(() -> transcodeLimiter(service).get("inFlight").asInt() == 1);
        await().atMost(SECONDS).until(() -> Ffmpeg.files(jobs).size() == 1);
        List<Path> holderFolder = Ffmpeg.files(jobs);

        HttpResponse<String> waited = send(service, "/api/transcode?height=240").get();

        assertThat(waited.statusCode()).isEqualTo(504);
        assertThat(JSON.readTree(waited.body()).get("limiter").asText()).isEqualTo("transcode");
        assertThat(Ffmpeg.children()).isEmpty();
        assertThat(Ffmpeg.files(jobs)).isEqualTo(holderFolder);
      } // the holder hangs up in the middle of its upload
      awaitNothingLeft(service);
    }
  }

  @Test
  // the open connection is the point: it holds the permit while the others are refused
  @SuppressWarnings("try")
  void everyUploadTheLimiterRefusesReadsIts429AndKeepsItsConnection() throws Exception {
    try (TranscodeService service = start("sluice.limiters.transcode.max-queue", "0")) {
      try (Socket holder = upload(service, "/api/transcode?height=240", clip, clip.length / 2)) {
        await()
            .atMost(SECONDS)
            .until(() -> transcodeLimiter(service).get("inFlight").asInt() == 1);

        // the plugin reads the refused body before it answers (sluice.rejections.discard-body):
        // unread, Jetty would close on it, and the reset could overtake the 429
        for (int attempt = 1; attempt <= 10; attempt++) {
          HttpResponse<String> refused =
              send(service, "/api/transcode?height=240", new byte[2 << 20]).get();

          assertThat(refused.statusCode()).as("attempt %d", attempt).isEqualTo(429);
          assertThat(JSON.readTree(refused.body()).get("reason").asText()).isEqualTo("queue_full");
          assertThat(refused.headers().firstValue("Connection")).isEmpty();
        }
        assertThat(Ffmpeg.children()).isEmpty();
      }
      awaitNothingLeft(service);
    }
  }

  @Test
  // the open connection is the point: it holds the permit, or hangs up when closed
  @SuppressWarnings("try")
  void aClientThatHangsUpDuringItsTranscodeLeavesNoProcessAndNoFile() throws Exception {
    try (TranscodeService service = start()) {
      try (Socket client =
          upload(service, "/api/transcode?height=720", longClip, longClip.length)) {
        await().atMost(SECONDS).until(Ffmpeg::anyFfmpegRunning);
        assertThat(Ffmpeg.files(jobs)).hasSize(1);
      } // hangs up while ffmpeg works
      awaitNothingLeft(service, PROMPTLY);
      // the permit came back: the next job runs
      HttpResponse<String> next = send(service, "/api/rescue?height=240").get();
      assertThat(next.statusCode()).as(next.body()).isEqualTo(200);
    }
  }

  @Test
  void aTranscodePastItsTimeoutIsKilledAndAnswered503() throws Exception {
    try (TranscodeService service = start("demo.ffmpeg.timeout", "500ms")) {
      HttpResponse<String> answer =
          send(service, "/api/transcode?height=720", longClip).get();
      assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
      assertThat(JSON.readTree(answer.body()).get("problem").asText()).isEqualTo("timed-out");
      assertThat(JSON.readTree(answer.body()).get("detail").asText())
          .contains("demo.ffmpeg.timeout");
      awaitNothingLeft(service);
    }
  }

  @Test
  void stoppingTheServiceEndsARunningTranscodeWithinTheDrainDeadline() throws Exception {
    TranscodeService service = start("sluice.shutdown.drain-timeout", "2s");
    CompletableFuture<HttpResponse<String>> running =
        send(service, "/api/transcode?height=720", longClip);
    await().atMost(SECONDS).until(Ffmpeg::anyFfmpegRunning);
    ProcessHandle ffmpeg = Ffmpeg.children().get(0);
    CompletableFuture<Long> endedNanos = ffmpeg.onExit().thenApply(p -> System.nanoTime());

    long stopping = System.nanoTime();
    service.close();

    assertThat(ffmpeg.isAlive()).isFalse();
    assertThat(Duration.ofNanos(endedNanos.get() - stopping))
        .isLessThanOrEqualTo(Duration.ofSeconds(2));
    assertThat(Ffmpeg.children()).isEmpty();
    await().atMost(SECONDS).untilAsserted(() -> assertThat(Ffmpeg.files(jobs)).isEmpty());
    // ended before the deadline, so the job is still answered (not cut with its connection)
    HttpResponse<String> answer = running.get();
    assertThat(answer.statusCode()).isEqualTo(503);
    assertThat(JSON.readTree(answer.body()).get("problem").asText()).isEqualTo("shutting-down");
  }
}
