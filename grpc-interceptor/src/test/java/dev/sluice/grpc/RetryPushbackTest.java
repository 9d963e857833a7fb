package dev.sluice.grpc;

import static dev.sluice.grpc.TestServer.ECHO;
import static dev.sluice.grpc.TestServer.HOLD;
import static dev.sluice.grpc.TestServer.statusOf;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.grpc.Status;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A grpc-java client with a retry policy on RESOURCE_EXHAUSTED waits the pushback Sluice sends,
 * not its own short backoff: its retry reaches the server no earlier than the pushback.
 */
@Tag("integration")
class RetryPushbackTest {

  /** Retries RESOURCE_EXHAUSTED once, after 10 ms of backoff unless the server says otherwise. */
  private static final Map<String, ?> RETRY_POLICY = Map.of(
      "methodConfig",
      List.of(Map.of(
          "name",
          List.of(Map.of("service", "test.Work")),
          "retryPolicy",
          Map.of(
              "maxAttempts",
              2.0,
              "initialBackoff",
              "0.01s",
              "maxBackoff",
              "0.01s",
              "backoffMultiplier",
              1.0,
              "retryableStatusCodes",
              List.of("RESOURCE_EXHAUSTED")))));

  @Test
  void theRetryArrivesNoEarlierThanThePushback() throws Exception {
    SluiceGrpc sluice = TestServer.sluice(Map.of(
            "sluice.limiters.work.path", "/test.Work/*",
            "sluice.limiters.work.max-concurrency", "1",
            "sluice.limiters.work.max-queue", "0"))
        .build();
    try (TestServer server = new TestServer(
        sluice, channel -> channel.defaultServiceConfig(RETRY_POLICY).enableRetry())) {
      server.send(HOLD);
      await().until(() -> server.started.get() == 1);

      Future<String> call = server.call(ECHO);

      Status status = statusOf(call);
      assertThat(status.getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
      long pushbackMillis = Long.parseLong(TestServer.pushback(call));
      List<Long> arrivals = server.arrivals;
      assertThat(arrivals).as("the held call, the first attempt, its retry").hasSize(3);
      long gapMillis = TimeUnit.NANOSECONDS.toMillis(arrivals.get(2) - arrivals.get(1));
      assertThat(gapMillis).isGreaterThanOrEqualTo(pushbackMillis);
      assertThat(server.started).hasValue(1);
    }
  }
}
