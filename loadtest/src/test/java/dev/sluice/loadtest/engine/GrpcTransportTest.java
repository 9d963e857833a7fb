package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The gRPC door as the load test's transport: a real grpc-java server over Netty on a free port
 * answers as the demo's door would (by the request's cpuMillis), a real channel calls it.
 */
class GrpcTransportTest {

  private static final Metadata.Key<String> HOST =
      Metadata.Key.of("x-host-id", Metadata.ASCII_STRING_MARSHALLER);

  private final List<Arrival> viaHttp = new CopyOnWriteArrayList<>();
  private final Transport http = request -> {
    viaHttp.add(request);
    return CompletableFuture.completedFuture(new Reply(200, Optional.empty(), "http"));
  };
  private Server server;
  private GrpcTransport grpc;

  @BeforeEach
  void start() throws IOException {
    // answers by cpuMillis: 1 done, 2 queue full with a pushback, 3 queue timeout, 4 stopping
    ServerCallHandler<String, String> door = (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(String request) {
          Metadata trailers = new Metadata();
          if (request.contains("\"cpuMillis\":1")) {
            call.sendHeaders(new Metadata());
            call.sendMessage("{\"request\":" + request + ",\"host\":\"" + headers.get(HOST)
                + "\",\"queuedMillis\":3.5}");
            call.close(Status.OK, trailers);
          } else if (request.contains("\"cpuMillis\":2")) {
            trailers.put(GrpcTransport.PUSHBACK, "2000");
            call.close(
                Status.RESOURCE_EXHAUSTED.withDescription("queue_full: The queue is full."),
                trailers);
          } else if (request.contains("\"cpuMillis\":3")) {
            call.close(
                Status.DEADLINE_EXCEEDED.withDescription("queue_timeout: Waited too long."),
                trailers);
          } else {
            trailers.put(GrpcTransport.PUSHBACK, "5000");
            call.close(Status.UNAVAILABLE.withDescription("shutting_down: Stopping."), trailers);
          }
        }
      };
    };
    server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .addService(ServerServiceDefinition.builder("transcode.Transcoder")
            .addMethod(GrpcTransport.TRANSCODE, door)
            .build())
        .build()
        .start();
    grpc = new GrpcTransport("127.0.0.1", server.getPort(), Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() throws InterruptedException {
    grpc.close();
    server.shutdownNow().awaitTermination(10, TimeUnit.SECONDS);
  }

  private static Arrival job(String query) {
    return new Arrival(
        0, "transcode", "POST", "/api/transcode?" + query, Map.of("X-Host-Id", "host-07"));
  }

  private Reply send(Arrival arrival) throws Exception {
    return grpc.routing(http).send(arrival).get(30, TimeUnit.SECONDS);
  }

  @Test
  void aTranscodeJobIsACallWithItsQueryAsJsonAndItsHeadersAsMetadata() throws Exception {
    Reply reply = send(job("cpuMillis=1&waitMillis=250"));

    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.retryAfter()).isEmpty();
    assertThat(reply.body())
        .isEqualTo("{\"request\":{\"cpuMillis\":1,\"waitMillis\":250},\"host\":\"host-07\","
            + "\"queuedMillis\":3.5}");
    assertThat(viaHttp).isEmpty();
  }

  @Test
  void refusalsComeBackAsTheHttpDoorWouldAnswerThem() throws Exception {
    Reply full = send(job("cpuMillis=2"));
    assertThat(full.status()).isEqualTo(429);
    assertThat(full.retryAfter()).contains("2");
    assertThat(full.body()).contains("\"reason\":\"queue_full\"");

    Reply timedOut = send(job("cpuMillis=3"));
    assertThat(timedOut.status()).isEqualTo(504);
    assertThat(timedOut.retryAfter()).isEmpty();

    Reply stopping = send(job("cpuMillis=4"));
    assertThat(stopping.status()).isEqualTo(503);
    assertThat(stopping.retryAfter()).contains("5");
  }

  @Test
  void everyOtherRequestGoesThroughHttp() throws Exception {
    Arrival history = new Arrival(0, "history", "GET", "/api/history/3", Map.of());
    Arrival rescue = new Arrival(0, "rescue", "POST", "/api/rescue?cpuMillis=1", Map.of());

    assertThat(send(history).body()).isEqualTo("http");
    assertThat(send(rescue).body()).isEqualTo("http");
    assertThat(viaHttp).containsExactly(history, rescue);
  }

  @Test
  void aDoorThatIsNotThereFailsTheAttemptAsAnIoErrorDoes() throws Exception {
    int closed = DemoProcess.freePort();
    try (GrpcTransport nowhere = new GrpcTransport("127.0.0.1", closed, Duration.ofSeconds(30))) {
      CompletableFuture<Reply> attempt = nowhere.routing(http).send(job("cpuMillis=1"));
      assertThatThrownBy(() -> attempt.get(30, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IOException.class);
    }
  }

  @Test
  void aPushbackIsRoundedUpToWholeSecondsOfRetryAfter() {
    Metadata trailers = new Metadata();
    trailers.put(GrpcTransport.PUSHBACK, "1001");
    assertThat(GrpcTransport.reply(Status.RESOURCE_EXHAUSTED, trailers, "").retryAfter())
        .contains("2");
    assertThat(GrpcTransport.reply(Status.INVALID_ARGUMENT, new Metadata(), "").status())
        .isEqualTo(400);
    assertThat(GrpcTransport.reply(Status.INTERNAL, new Metadata(), "").status())
        .isEqualTo(500);
  }

  @Test
  void theQueryBecomesTheDoorsJsonRequest() {
    assertThat(GrpcTransport.json("/api/transcode?cpuMillis=200")).isEqualTo("{\"cpuMillis\":200}");
    assertThat(GrpcTransport.json("/api/transcode")).isEqualTo("{}");
    assertThat(GrpcTransport.json("/api/transcode?note=a%22b")).isEqualTo("{\"note\":\"a\\\"b\"}");
  }
}
