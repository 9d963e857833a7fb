package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

/** The paced client sends what is left of each request's timeout in the deadline header. */
class DeadlineHeaderTest {

  private final VirtualTime time = new VirtualTime();
  private final List<String> budgets = new ArrayList<>();
  private final ScriptedServer server = new ScriptedServer(time, 0, (request, n) -> {
    budgets.add(request.headers().firstValue("X-Deadline-Ms").orElse(null));
    return FakeResponse.of(request, 200);
  });

  private PacedClient client() {
    return PacedClient.builder(server)
        .config(PacedClientConfig.custom()
            .pace(1, Duration.ofMillis(100))
            .deadlineHeader("X-Deadline-Ms")
            .build())
        .clock(time)
        .scheduler(time)
        .build();
  }

  private static HttpRequest request(Duration timeout) {
    HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://service.test/api"));
    return (timeout == null ? b : b.timeout(timeout)).build();
  }

  @Test
  void eachRequestCarriesItsTimeoutLessTheTimeItWasPacedHere() {
    PacedClient client = client();
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      answers.add(
          client.submit(request(Duration.ofSeconds(1)), HttpResponse.BodyHandlers.ofString()));
    }
    time.advance(Duration.ofMillis(500));

    answers.forEach(a -> assertThat(a.join().statusCode()).isEqualTo(200));
    // one send per 100 ms: the third waited 200 ms of its second
    assertThat(budgets).containsExactly("1000", "900", "800");
  }

  @Test
  void aNameThatIsNoHeaderTheClientMaySendIsRefusedNamingIt() {
    for (String bad : new String[] {"", " ", "X Deadline", "X-Deadline:", "Host", "Connection"}) {
      assertThatThrownBy(() -> PacedClientConfig.custom().deadlineHeader(bad))
          .as("'%s'", bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("deadlineHeader")
          .hasMessageContaining("'" + bad + "'");
    }
    assertThatThrownBy(() -> PacedClientConfig.custom().deadlineHeader(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("deadlineHeader");
    assertThat(PacedClientConfig.custom()
            .deadlineHeader("x-envoy-expected-rq-timeout-ms")
            .build()
            .deadlineHeader())
        .contains("x-envoy-expected-rq-timeout-ms");
  }

  @Test
  void aRequestWithoutATimeoutIsSentAsItIs() {
    client().submit(request(null), HttpResponse.BodyHandlers.ofString()).join();

    assertThat(budgets).containsExactly((String) null);
  }

  @Test
  // requests submitted to drive the pacer; the test asserts on what the server or the pacer
  // recorded
  @SuppressWarnings("FutureReturnValueIgnored")
  void aRequestWhoseBudgetIsSpentBeforeItsTurnIsNotSent() {
    PacedClient client = client();
    client.submit(request(Duration.ofSeconds(1)), HttpResponse.BodyHandlers.ofString());
    CompletableFuture<HttpResponse<String>> late =
        client.submit(request(Duration.ofMillis(50)), HttpResponse.BodyHandlers.ofString());
    time.advance(Duration.ofMillis(300));

    assertThat(late).isCompletedExceptionally();
    try {
      late.join();
    } catch (CompletionException e) {
      assertThat(e.getCause()).isInstanceOf(HttpTimeoutException.class);
    }
    assertThat(server.count()).isEqualTo(1);
  }
}
