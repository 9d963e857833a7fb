package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;

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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The retrying client against a real grpc-java server over Netty on a free port that refuses as
 * the demo's door does when full ({@code RESOURCE_EXHAUSTED} with {@code grpc-retry-pushback-ms}, in
 * a trailers-only answer): the channel's policy retries, and the tracer records every attempt.
 */
class RetryingGrpcClientTest {

  /** Refusals before a call of {@code cpuMillis=N} is answered: N, each with a 100 ms pushback. */
  private final AtomicInteger received = new AtomicInteger();

  private Server server;
  private RetryingGrpcClient client;

  @BeforeEach
  void start() throws IOException {
    ServerCallHandler<String, String> door = (call, headers) -> {
      call.request(1);
      return new ServerCall.Listener<>() {
        @Override
        public void onMessage(String request) {
          int attempt = received.getAndIncrement();
          int refusals = Integer.parseInt(request.replaceAll("[^0-9]", ""));
          Metadata trailers = new Metadata();
          if (request.contains("cpuMillis") && attempt < refusals) {
            trailers.put(GrpcTransport.PUSHBACK, "100");
            call.close(
                Status.RESOURCE_EXHAUSTED.withDescription("queue_full: The queue is full."),
                trailers);
          } else if (request.contains("waitMillis")) {
            call.close(Status.INVALID_ARGUMENT.withDescription("bad"), trailers);
          } else {
            call.sendHeaders(new Metadata());
            call.sendMessage("{\"ok\":true}");
            call.close(Status.OK, trailers);
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
    client = new RetryingGrpcClient("127.0.0.1", server.getPort(), Duration.ofSeconds(30));
  }

  @AfterEach
  void stop() throws InterruptedException {
    client.close();
    server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void refusalsWithAPushbackAreRetriedAfterItAndEveryAttemptIsRecorded() throws Exception {
    Status status = client.call("/api/transcode?cpuMillis=2", Map.of()).get(30, TimeUnit.SECONDS);

    assertThat(status.getCode()).isEqualTo(Status.Code.OK);
    assertThat(received).hasValue(3);
    PushbackCheck check = client.check();
    assertThat(check.calls()).isEqualTo(1);
    assertThat(check.attempts()).isEqualTo(3);
    // the trailer was read from each trailers-only refusal
    assertThat(check.afterPushback()).isEqualTo(2);
    assertThat(check.violationCount()).as(check.violations().toString()).isZero();
    assertThat(check.minSlackMillis()).isGreaterThanOrEqualTo(0);
    assertThat(check.finalStatuses()).isEqualTo(Map.of("OK", 1));
    assertThat(client.open()).isZero();
  }

  @Test
  void aCallRefusedEveryTimeEndsAfterThePolicysAttempts() throws Exception {
    Status status = client.call("/api/transcode?cpuMillis=99", Map.of()).get(30, TimeUnit.SECONDS);

    assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
    assertThat(received).hasValue(RetryingGrpcClient.MAX_ATTEMPTS);
    PushbackCheck check = client.check();
    assertThat(check.attempts()).isEqualTo(RetryingGrpcClient.MAX_ATTEMPTS);
    assertThat(check.afterPushback()).isEqualTo(RetryingGrpcClient.MAX_ATTEMPTS - 1);
    assertThat(check.honoured()).isTrue();
  }

  @Test
  void aStatusThePolicyDoesNotNameIsNotRetried() throws Exception {
    Status status = client.call("/api/transcode?waitMillis=1", Map.of()).get(30, TimeUnit.SECONDS);

    assertThat(status.getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(received).hasValue(1);
    assertThat(client.check().attempts()).isEqualTo(1);
    assertThat(client.check().afterPushback()).isZero();
  }

  @Test
  void aPushbackTrailerIsReadAsGrpcJavaReadsIt() {
    assertThat(RetryingGrpcClient.pushbackMillis("1000")).isEqualTo(1000);
    assertThat(RetryingGrpcClient.pushbackMillis(" 250 ")).isEqualTo(250);
    assertThat(RetryingGrpcClient.pushbackMillis(null)).isEqualTo(-1);
    assertThat(RetryingGrpcClient.pushbackMillis("-5")).isEqualTo(-1);
    assertThat(RetryingGrpcClient.pushbackMillis("soon")).isEqualTo(-1);
  }
}
