package dev.sluice.loadtest.soak;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.sampling.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * Reads one demo node for the soak: its heap right after a full GC ({@link
 * DemoProcess#collectGarbage()}, then read from {@code /metrics}: heap after GC is the one heap
 * figure whose trend means something), its live threads, and from {@code
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
    demo.collectGarbage();
    String metrics = get("metrics");
    JsonNode limiter = limiter(get("sluice"));
    return new SoakSample.Node(
        PrometheusText.heapUsedBytes(metrics),
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

  /** The first sample of {@code name}, or -1. */
  static double metric(String metrics, String name) {
    return PrometheusText.value(metrics, name).orElse(-1);
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
