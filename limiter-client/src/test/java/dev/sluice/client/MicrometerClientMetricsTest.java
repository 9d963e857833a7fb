package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class MicrometerClientMetricsTest {

  @Test
  // requests submitted to drive the pacer; the test asserts on what the server or the pacer
  // recorded
  @SuppressWarnings("FutureReturnValueIgnored")
  void sendsThrottlesRetriesAndPaceAreMetered() {
    VirtualTime time = new VirtualTime();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    ScriptedServer server = new ScriptedServer(
        time,
        0,
        (r, n) -> n == 0
            ? FakeResponse.of(r, 429, "Retry-After", "1")
            : FakeResponse.of(r, 200, "RateLimit-Policy", "\"p\";q=50;w=1"));
    PacedClient client = PacedClient.builder(server)
        .clock(time)
        .scheduler(time)
        .config(PacedClientConfig.custom().pace(100, Duration.ofSeconds(1)).build())
        .listener(new MicrometerClientMetrics(registry, "orders"))
        .build();

    client.submit(
        HttpRequest.newBuilder(URI.create("http://o.test/")).build(),
        HttpResponse.BodyHandlers.discarding());
    time.advance(Duration.ofSeconds(2));

    assertThat(registry
            .get("sluice.client.sends")
            .tag("client", "orders")
            .counter()
            .count())
        .isEqualTo(2);
    assertThat(registry.get("sluice.client.throttled").counter().count()).isEqualTo(1);
    assertThat(registry.get("sluice.client.retries").counter().count()).isEqualTo(1);
    assertThat(registry.get("sluice.client.budget.exhausted").counter().count()).isZero();
    assertThat(registry.get("sluice.client.pace").gauge().value()).isEqualTo(50.0);
  }
}
