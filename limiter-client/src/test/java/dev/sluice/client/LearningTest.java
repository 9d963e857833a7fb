package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

/** What the client does with the server's answers: pace, pauses, retries and their budget. */
class LearningTest {

  private static final HttpRequest A =
      HttpRequest.newBuilder(URI.create("http://a.test/r")).build();
  private final VirtualTime time = new VirtualTime();
  private final List<Double> paces = new ArrayList<>();
  private final List<String> events = new ArrayList<>();

  private PacedClient client(ScriptedServer server, PacedClientConfig.Builder config) {
    return PacedClient.builder(server)
        .config(config.build())
        .clock(time)
        .scheduler(time)
        .random(RandomGenerator.of("L64X128MixRandom"))
        .listener(new ClientListener() {
          @Override
          public void onPace(double permitsPerSecond) {
            paces.add(permitsPerSecond);
          }

          @Override
          public void onRetry() {
            events.add("retry");
          }

          @Override
          public void onBudgetExhausted() {
            events.add("exhausted");
          }
        })
        .build();
  }

  private CompletableFuture<HttpResponse<Void>> submit(PacedClient client) {
    return client.submit(A, HttpResponse.BodyHandlers.discarding());
  }

  @Test
  // requests submitted to drive the pacer; the test asserts on what the server or the pacer
  // recorded
  @SuppressWarnings("FutureReturnValueIgnored")
  void anAdvertisedPolicyLowersThePace() {
    ScriptedServer server = new ScriptedServer(
        time, 0, (r, n) -> FakeResponse.of(r, 200, "RateLimit-Policy", "\"p\";q=10;w=1"));
    PacedClient client =
        client(server, PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)));
    for (int i = 0; i < 30; i++) {
      submit(client);
    }

    time.advance(Duration.ofSeconds(1));

    assertThat(client.pacePerSecond()).isEqualTo(10.0);
    assertThat(paces).containsExactly(100.0, 10.0);
    // 2 went out at 100/s before the first answer lowered the pace, then 10 per second
    assertThat(server.count()).isBetween(10, 13);
  }

  @Test
  // requests submitted to drive the pacer; the test asserts on what the server or the pacer
  // recorded
  @SuppressWarnings("FutureReturnValueIgnored")
  void anAdvertisedPaceNeverRaisesTheCeiling() {
    ScriptedServer server = new ScriptedServer(
        time,
        0,
        (r, n) -> FakeResponse.of(
            r, 200, "RateLimit-Policy", "\"p\";q=1000;w=1", "X-RateLimit-Limit", "500"));
    PacedClient client = client(server, PacedClientConfig.custom().pace(10, Duration.ofSeconds(1)));
    for (int i = 0; i < 30; i++) {
      submit(client);
    }

    time.advance(Duration.ofMillis(999));

    assertThat(client.pacePerSecond()).isEqualTo(10.0);
    assertThat(server.count()).isEqualTo(10);
  }

  @Test
  void retryAfterPausesTheDestinationThenTheRecordIsRetried() {
    ScriptedServer server = new ScriptedServer(
        time,
        0,
        (r, n) -> n == 0 ? FakeResponse.of(r, 429, "Retry-After", "2") : FakeResponse.of(r, 200));
    PacedClient client =
        client(server, PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)));
    CompletableFuture<HttpResponse<Void>> first = submit(client);
    CompletableFuture<HttpResponse<Void>> second = submit(client);

    time.advance(Duration.ofMillis(1999));
    assertThat(server.count())
        .isEqualTo(1); // the answer came at once: the second waits behind the pause
    time.advance(Duration.ofMillis(20));

    assertThat(first.join().statusCode()).isEqualTo(200);
    assertThat(second.join().statusCode()).isEqualTo(200);
    assertThat(server.arrivals.get(1) - server.arrivals.get(0))
        .isEqualTo(Duration.ofSeconds(2).toNanos());
    assertThat(events).containsExactly("retry");
  }

  @Test
  void a503WithAnHttpDateIsAPauseToo() {
    java.time.Instant now = java.time.Instant.parse("2026-11-23T08:00:00Z");
    ScriptedServer server = new ScriptedServer(
        time,
        0,
        (r, n) -> n == 0
            ? FakeResponse.of(r, 503, "Retry-After", "Mon, 23 Nov 2026 08:00:05 GMT")
            : FakeResponse.of(r, 200));
    PacedClient client = PacedClient.builder(server)
        .config(PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)).build())
        .clock(time)
        .scheduler(time)
        .wallClock(java.time.Clock.fixed(now, java.time.ZoneOffset.UTC))
        .build();
    CompletableFuture<HttpResponse<Void>> record = submit(client);

    time.advance(Duration.ofMillis(4999));
    assertThat(record).isNotDone();
    time.advance(Duration.ofMillis(1));

    assertThat(record.join().statusCode()).isEqualTo(200);
    assertThat(server.count()).isEqualTo(2);
  }

  @Test
  void otherErrorsAreReturnedNotRetried() {
    ScriptedServer server =
        new ScriptedServer(time, 0, (r, n) -> FakeResponse.of(r, n == 0 ? 500 : 400));
    PacedClient client =
        client(server, PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)));
    CompletableFuture<HttpResponse<Void>> a = submit(client);
    CompletableFuture<HttpResponse<Void>> b = submit(client);

    time.advance(Duration.ofSeconds(5));

    assertThat(a.join().statusCode()).isEqualTo(500);
    assertThat(b.join().statusCode()).isEqualTo(400);
    assertThat(server.count()).isEqualTo(2);
    assertThat(events).isEmpty();
  }

  @Test
  void transportErrorsFailTheRecordAndAreNotRetried() {
    Transport broken = new Transport() {
      @Override
      public <T> CompletableFuture<HttpResponse<T>> send(
          HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return CompletableFuture.failedFuture(new java.io.IOException("connection refused"));
      }
    };
    PacedClient client = PacedClient.builder(broken).clock(time).scheduler(time).build();
    CompletableFuture<HttpResponse<Void>> record =
        client.submit(A, HttpResponse.BodyHandlers.discarding());
    time.advance(Duration.ofSeconds(1));
    assertThat(record).isCompletedExceptionally();
  }

  @Test
  void throttledWithoutRetryAfterBacksOffWithJitterWithinTheBound() {
    ScriptedServer server = new ScriptedServer(
        time, 0, (r, n) -> n < 2 ? FakeResponse.of(r, 429) : FakeResponse.of(r, 200));
    PacedClient client = client(
        server,
        PacedClientConfig.custom()
            .pace(1000, Duration.ofSeconds(1))
            .backoff(Duration.ofMillis(100), Duration.ofSeconds(1)));
    CompletableFuture<HttpResponse<Void>> record = submit(client);

    time.advance(Duration.ofSeconds(2));

    assertThat(record.join().statusCode()).isEqualTo(200);
    assertThat(server.arrivals.get(1) - server.arrivals.get(0))
        .isBetween(1L, Duration.ofMillis(101).toNanos());
    assertThat(server.arrivals.get(2) - server.arrivals.get(1))
        .isBetween(1L, Duration.ofMillis(201).toNanos());
  }

  @Test
  void theBudgetStopsARetryStormAndReturnsThe429() {
    ScriptedServer server = new ScriptedServer(time, 0, (r, n) -> FakeResponse.of(r, 429));
    PacedClient client = client(
        server,
        PacedClientConfig.custom()
            .pace(10_000, Duration.ofSeconds(1))
            .retryBudget(0.1, 0)
            .maxAttempts(5)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(2)));
    List<CompletableFuture<HttpResponse<Void>>> records = new ArrayList<>();
    for (int i = 0; i < 100; i++) {
      records.add(submit(client));
    }

    time.advance(Duration.ofSeconds(5));

    assertThat(records).allMatch(f -> f.join().statusCode() == 429);
    long retries = events.stream().filter("retry"::equals).count();
    assertThat(retries).isLessThanOrEqualTo(10);
    assertThat(server.count()).isEqualTo(100 + (int) retries);
    assertThat(events).contains("exhausted");
  }

  @Test
  void clientSideThrottlingShedsLocallyOnceTheServiceRefusesMost() {
    ScriptedServer server = new ScriptedServer(time, 0, (r, n) -> FakeResponse.of(r, 429));
    PacedClient client = client(
        server,
        PacedClientConfig.custom()
            .pace(10_000, Duration.ofSeconds(1))
            .maxAttempts(1)
            .clientSideThrottling(2, Duration.ofSeconds(60)));
    int shed = 0;
    for (int i = 0; i < 200; i++) {
      CompletableFuture<HttpResponse<Void>> f = submit(client);
      time.advance(Duration.ofMillis(1));
      if (f.isCompletedExceptionally()) {
        shed++;
      }
    }
    assertThat(shed).isGreaterThan(150);
    assertThat(server.count()).isEqualTo(200 - shed);
  }

  @Test
  void withLearningOffOnlyRetryAfterCounts() {
    ScriptedServer server = new ScriptedServer(
        time,
        0,
        (r, n) -> n == 0
            ? FakeResponse.of(r, 429, "Retry-After", "1", "RateLimit-Policy", "\"p\";q=1;w=1")
            : FakeResponse.of(r, 200, "RateLimit-Policy", "\"p\";q=1;w=1"));
    PacedClient client = client(
        server,
        PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)).learnFromHeaders(false));
    CompletableFuture<HttpResponse<Void>> record = submit(client);

    time.advance(Duration.ofMillis(999));
    assertThat(record).isNotDone();
    time.advance(Duration.ofMillis(1));

    assertThat(record.join().statusCode()).isEqualTo(200);
    assertThat(client.pacePerSecond()).isEqualTo(100.0);
  }
}
