package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Status;
import java.io.IOException;
import java.net.ServerSocket;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The gRPC door beside the HTTP one, both real (Netty, Jetty) on free ports, against a real
 * grpc-java client and the JDK's HTTP client: one transcode limiter behind both doors, one permit
 * and a few queue places, so each door's jobs can fill what the other's wait for.
 */
@Tag("integration")
class GrpcDoorHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String PUSHBACK = "grpc-retry-pushback-ms";

  /** One permit, {@code maxQueue} places, fair by X-Host-Id with one place per host. */
  private static TranscodeService start(int maxQueue, String... more) throws IOException {
    Map<String, String> props = new HashMap<>();
    props.put("server.port", "0");
    props.put("demo.grpc.port", Integer.toString(freePort()));
    props.put("demo.frames-per-milli", "0.5");
    props.put("sluice.limiters.transcode.limit", "fixed");
    props.put("sluice.limiters.transcode.max-concurrency", "1");
    props.put("sluice.limiters.transcode.reject-early", "false");
    props.put("sluice.limiters.transcode.max-queue", Integer.toString(maxQueue));
    props.put("sluice.limiters.transcode.queue-timeout", "20s");
    for (int i = 0; i < more.length; i += 2) {
      props.put(more[i], more[i + 1]);
    }
    return TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2));
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  private static JsonNode transcode(DemoClient http) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals("transcode")) {
        return l;
      }
    }
    throw new AssertionError("no transcode limiter");
  }

  private static void awaitLimiter(DemoClient http, int inFlight, int queued) {
    await().atMost(Duration.ofSeconds(20)).until(() -> {
      JsonNode l = transcode(http);
      return l.get("inFlight").asInt() == inFlight && l.get("queued").asInt() == queued;
    });
  }

  @Test
  void anAdmittedCallAnswersTheJobResult() throws Exception {
    try (TranscodeService service = start(4);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      Future<String> call = grpc.transcode("{\"cpuMillis\": 5}", "x-host-id", "host-a");

      JsonNode result = JSON.readTree(call.get(30, TimeUnit.SECONDS));
      assertThat(result.get("endpoint").asText()).isEqualTo("transcode");
      assertThat(result.get("cpuMillis").asInt()).isEqualTo(5);
      assertThat(result.get("waitMillis").asInt()).isZero();
      assertThat(result.get("frames").asInt()).isPositive();
      assertThat(result.get("jobId").asText()).startsWith("transcode-");
      // the HTTP door's limiter counted it: one limiter behind both doors
      assertThat(transcode(new DemoClient(service.port())).get("admitted").asLong())
          .isOne();
    }
  }

  @Test
  void aBadJobIsInvalidArgumentOnceAdmittedAndGivesItsPermitBack() throws Exception {
    try (TranscodeService service = start(4);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      Status missing = GrpcClient.statusOf(grpc.transcode("{}"));
      assertThat(missing.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(missing.getDescription()).contains("cpuMillis is required");
      assertThat(GrpcClient.statusOf(grpc.transcode("{\"cpuMillis\": 999999}")).getCode())
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      assertThat(GrpcClient.statusOf(grpc.transcode("not json")).getCode())
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
      // the interceptor admits a call before its message is read: each took the permit, briefly
      DemoClient http = new DemoClient(service.port());
      assertThat(transcode(http).get("admitted").asLong()).isEqualTo(3);
      awaitLimiter(http, 0, 0);
    }
  }

  @Test
  void aBadJobWaitsItsTurnBeforeItIsRefused() throws Exception {
    try (TranscodeService service = start(4);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> holding = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1&waitMillis=1500", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 0);

      Future<String> bad = grpc.transcode("not json", "x-host-id", "host-a");
      awaitLimiter(http, 1, 1);
      assertThat(bad)
          .as("a queued call is not started: its message is not read yet")
          .isNotDone();

      assertThat(holding.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(GrpcClient.statusOf(bad).getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
      awaitLimiter(http, 0, 0);
    }
  }

  @Test
  void aCallQueuesBehindAnHttpJobAndIsRefusedWithPushbackWhenTheQueueIsFull() throws Exception {
    try (TranscodeService service = start(1);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      // the only permit, held for 3 s of storage wait (no CPU: a busy machine cannot shorten it)
      CompletableFuture<HttpResponse<String>> holding = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1&waitMillis=3000", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 0);

      Future<String> queued = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "host-a");
      awaitLimiter(http, 1, 1);
      Future<String> full = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "host-b");

      Status refused = GrpcClient.statusOf(full);
      assertThat(refused.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(refused.getDescription()).startsWith("queue_full:");
      String pushback = GrpcClient.trailersOf(full)
          .get(io.grpc.Metadata.Key.of(PUSHBACK, io.grpc.Metadata.ASCII_STRING_MARSHALLER));
      assertThat(Long.parseLong(pushback)).isGreaterThanOrEqualTo(1000);

      assertThat(holding.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      JsonNode served = JSON.readTree(queued.get(30, TimeUnit.SECONDS));
      // it waited for the HTTP job's permit: most of the HTTP job's 3 s
      assertThat(served.get("queuedMillis").asDouble()).isGreaterThan(500);
      JsonNode limiter = transcode(http);
      assertThat(limiter.get("admitted").asLong()).isEqualTo(2);
      assertThat(limiter.get("rejected").get("queueFull").asLong()).isOne();
    }
  }

  @Test
  void anHttpRequestQueuesBehindACallAndIs429WhenTheCallsFillTheQueue() throws Exception {
    try (TranscodeService service = start(1);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      Future<String> holding =
          grpc.transcode("{\"cpuMillis\": 1, \"waitMillis\": 3000}", "x-host-id", "host-a");
      awaitLimiter(http, 1, 0);

      CompletableFuture<HttpResponse<String>> queued =
          http.sendAsync("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 1);
      Future<String> full = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "host-b");
      assertThat(GrpcClient.statusOf(full).getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      HttpResponse<String> alsoFull =
          http.send("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "host-c");
      assertThat(alsoFull.statusCode()).isEqualTo(429);

      assertThat(
              JSON.readTree(holding.get(30, TimeUnit.SECONDS)).get("waitMillis").asInt())
          .isEqualTo(3000);
      HttpResponse<String> served = queued.get(30, TimeUnit.SECONDS);
      assertThat(served.statusCode()).isEqualTo(200);
      assertThat(JSON.readTree(served.body()).get("queuedMillis").asDouble()).isGreaterThan(500);
    }
  }

  @Test
  void aCallWhoseDeadlinePassesWhileQueuedIsDeadlineExceededAndLeavesItsPlace() throws Exception {
    try (TranscodeService service = start(1);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> holding = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1&waitMillis=3000", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 0);

      Future<String> late =
          grpc.transcode("{\"cpuMillis\": 1}", Duration.ofMillis(300), "x-host-id", "host-a");
      assertThat(GrpcClient.statusOf(late).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED);
      // its place is free again: the next call queues instead of being refused
      awaitLimiter(http, 1, 0);
      Future<String> next = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "host-a");
      awaitLimiter(http, 1, 1);

      assertThat(holding.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(GrpcClient.statusOf(next).getCode()).isEqualTo(Status.Code.OK);
    }
  }

  @Test
  void aHostHasOnePlaceWhicheverDoorItCallsThrough() throws Exception {
    try (TranscodeService service = start(8);
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> holding = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1&waitMillis=3000", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 0);

      Future<String> greedyFirst = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "greedy");
      awaitLimiter(http, 1, 1);
      // the same host again, through either door: its one place is taken
      Future<String> greedyAgain = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "greedy");
      Status capped = GrpcClient.statusOf(greedyAgain);
      assertThat(capped.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      assertThat(capped.getDescription()).startsWith("key_cap:").contains("'greedy'");
      HttpResponse<String> viaHttp =
          http.send("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "greedy");
      assertThat(viaHttp.statusCode()).isEqualTo(429);
      // another host still gets a place, through HTTP and through gRPC
      CompletableFuture<HttpResponse<String>> politeHttp =
          http.sendAsync("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "polite-1");
      Future<String> politeGrpc = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "polite-2");
      awaitLimiter(http, 1, 3);

      assertThat(holding.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(GrpcClient.statusOf(greedyFirst).getCode()).isEqualTo(Status.Code.OK);
      assertThat(politeHttp.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      assertThat(GrpcClient.statusOf(politeGrpc).getCode()).isEqualTo(Status.Code.OK);
      assertThat(transcode(http).get("rejected").get("queueFull").asLong()).isEqualTo(2);
    }
  }

  @Test
  void aQueuedCallIsUnavailableWithPushbackWhenTheServiceStops() throws Exception {
    TranscodeService service = start(4, "sluice.shutdown.drain-timeout", "10s");
    try (GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> running = http.sendAsync(
          "POST", "/api/transcode?cpuMillis=1&waitMillis=1500", "X-Host-Id", "host-http");
      awaitLimiter(http, 1, 0);
      Future<String> queued = grpc.transcode("{\"cpuMillis\": 1}", "x-host-id", "host-a");
      awaitLimiter(http, 1, 1);

      CompletableFuture<Void> stopped = CompletableFuture.runAsync(service::close);

      Status status = GrpcClient.statusOf(queued);
      assertThat(status.getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(status.getDescription()).startsWith("shutting_down:");
      assertThat(GrpcClient.trailersOf(queued)
              .get(io.grpc.Metadata.Key.of(PUSHBACK, io.grpc.Metadata.ASCII_STRING_MARSHALLER)))
          .isNotNull();
      // the running job finishes inside the drain
      assertThat(running.get(30, TimeUnit.SECONDS).statusCode()).isEqualTo(200);
      stopped.get(30, TimeUnit.SECONDS);
    } finally {
      service.close();
    }
  }

  @Test
  void everyCallOfABurstFromManyHostsIsAnsweredAndLeavesNothingBehind() throws Exception {
    // the demo's own transcode settings (adaptive limit, fair queue, reject-early)
    Map<String, String> props = new HashMap<>();
    props.put("server.port", "0");
    props.put("demo.grpc.port", Integer.toString(freePort()));
    props.put("demo.frames-per-milli", "0.5");
    try (TranscodeService service =
            TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2));
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      DemoClient http = new DemoClient(service.port());
      List<Future<String>> calls = new ArrayList<>();
      List<CompletableFuture<HttpResponse<String>>> requests = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        String host = String.format(java.util.Locale.ROOT, "host-%02d", i % 32);
        calls.add(grpc.transcode("{\"cpuMillis\": 40}", "x-host-id", host));
        if (i % 4 == 0) {
          requests.add(http.sendAsync("POST", "/api/transcode?cpuMillis=40", "X-Host-Id", host));
        }
      }
      Map<Status.Code, Integer> outcomes = new java.util.TreeMap<>();
      for (Future<String> call : calls) {
        outcomes.merge(GrpcClient.statusOf(call).getCode(), 1, Integer::sum);
      }
      for (CompletableFuture<HttpResponse<String>> request : requests) {
        assertThat(request.get(30, TimeUnit.SECONDS).statusCode()).isIn(200, 429, 504);
      }
      assertThat(outcomes.keySet())
          .contains(Status.Code.OK)
          .isSubsetOf(
              Status.Code.OK, Status.Code.RESOURCE_EXHAUSTED, Status.Code.DEADLINE_EXCEEDED);
      awaitLimiter(http, 0, 0);
    }
  }

  @Test
  void withSluiceOffTheDoorRunsCallsUnguardedAsTheHttpEndpointIs() throws Exception {
    try (TranscodeService service = start(1, "sluice.enabled", "false");
        GrpcClient grpc = new GrpcClient(service.grpcPort())) {
      Future<String> a = grpc.transcode("{\"cpuMillis\": 1, \"waitMillis\": 500}");
      Future<String> b = grpc.transcode("{\"cpuMillis\": 1, \"waitMillis\": 500}");
      assertThat(GrpcClient.statusOf(a).getCode()).isEqualTo(Status.Code.OK);
      assertThat(GrpcClient.statusOf(b).getCode()).isEqualTo(Status.Code.OK);
    }
  }

  @Test
  void thereIsNoDoorUnlessThePortIsSet() throws Exception {
    Map<String, String> props = Map.of("server.port", "0", "demo.frames-per-milli", "0.5");
    try (TranscodeService service =
        TranscodeService.start(DemoSettings.load(new String[0], Map.of(), props, 2))) {
      assertThat(service.grpcPort()).isZero();
    }
  }
}
