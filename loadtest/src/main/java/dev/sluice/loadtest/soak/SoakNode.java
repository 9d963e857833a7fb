package dev.sluice.loadtest.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.engine.DemoProcess;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Reads one demo node for the soak: its heap right after a full GC (asked for with {@code jcmd
 * <pid> GC.run}, then read from {@code /metrics}: heap after GC is the one heap figure whose trend
 * means something, the heap between two collections is a saw), its live threads, and from {@code
 * /sluice} the {@code transcode} limiter's in-flight, queued and cluster-wide leases.
 */
final class SoakNode {

  static final String LIMITER = "transcode";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DemoProcess demo;
  private final HttpClient http;

  SoakNode(DemoProcess demo, HttpClient http) {
    this.demo = demo;
    this.http = http;
  }

  URI uri() {
    return demo.uri();
  }

  SoakSample.Node read() throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Process gc = new ProcessBuilder(jcmd.toString(), Long.toString(demo.pid()), "GC.run")
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    if (!gc.waitFor(30, TimeUnit.SECONDS)) {
      gc.destroyForcibly();
      throw new IOException("jcmd " + demo.pid() + " GC.run did not end within 30 s");
    }
    String metrics = get("metrics");
    JsonNode limiter = limiter(get("sluice"));
    return new SoakSample.Node(
        heapBytes(metrics),
        (int) metric(metrics, "jvm_threads_live_threads"),
        limiter.path("inFlight").asInt(-1),
        limiter.path("queued").asInt(-1),
        limiter.path("clusterLeases").isNumber() ? limiter.get("clusterLeases").asInt() : -1);
  }

  private String get(String path) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(demo.uri().resolve(path))
            .timeout(Duration.ofSeconds(10))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException(
          "GET " + demo.uri().resolve(path) + " answered " + response.statusCode());
    }
    return response.body();
  }

  /** The sum of every heap pool's {@code jvm_memory_used_bytes} in Prometheus text. */
  static long heapBytes(String metrics) {
    double sum = 0;
    for (String line : metrics.split("\n")) {
      if (line.startsWith("jvm_memory_used_bytes{") && line.contains("area=\"heap\"")) {
        sum +=
            Double.parseDouble(line.substring(line.lastIndexOf('}') + 1).trim().split("\\s+")[0]);
      }
    }
    return (long) sum;
  }

  /** The first sample of {@code name}, or -1. */
  static double metric(String metrics, String name) {
    return dev.sluice.loadtest.sampling.PrometheusText.value(metrics, name).orElse(-1);
  }

  /** The limiter {@value #LIMITER} in the {@code /sluice} JSON; a missing node when absent. */
  static JsonNode limiter(String status) throws IOException {
    for (JsonNode limiter : JSON.readTree(status).path("limiters")) {
      if (LIMITER.equals(limiter.path("name").asText())) {
        return limiter;
      }
    }
    return JSON.missingNode();
  }
}
