package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** What a processor does with each answer, against a real redis-server and a scripted service. */
@Tag("integration")
class DurableBufferTest {

  @Test
  void acceptedAreAcknowledgedRefusedAreDroppedAndFailedAreClaimedAgain() throws Exception {
    Map<String, AtomicInteger> tries = new ConcurrentHashMap<>();
    // "ok" is accepted; "bad" refused with a 400; "flaky" fails with a 500 the first time
    ScriptedServer service = new ScriptedServer(new VirtualTime(), 0, (request, n) -> {
      String record = request.uri().getQuery();
      int attempt = tries.computeIfAbsent(record, k -> new AtomicInteger()).incrementAndGet();
      int status =
          record.startsWith("bad") ? 400 : record.startsWith("flaky") && attempt == 1 ? 500 : 200;
      return FakeResponse.of(request, status);
    });
    try (RedisServer redis = RedisServer.start();
        DurableBuffer buffer = DurableBuffer.open(redis.uri(), "orders");
        PacedClient client = PacedClient.builder(service)
            .config(
                PacedClientConfig.custom().pace(1_000, Duration.ofSeconds(1)).build())
            .build()) {
      for (String kind : new String[] {"ok", "bad", "flaky"}) {
        for (int i = 0; i < 10; i++) {
          buffer.append(kind + "-" + i).get(5, TimeUnit.SECONDS);
        }
      }
      BufferProcessor processor = BufferProcessor.builder(
              redis.uri(),
              "orders",
              client,
              (id, record) -> HttpRequest.newBuilder(URI.create("http://orders.test/?" + record))
                  .build())
          .claimIdle(Duration.ofMillis(300))
          .build()
          .start();

      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> buffer.length() == 0 && buffer.pending() == 0);
      processor.close();

      assertThat(processor.delivered()).isEqualTo(20);
      assertThat(processor.refused()).isEqualTo(10);
      assertThat(processor.failed()).isEqualTo(10);
      assertThat(processor.claimed()).isEqualTo(10);
      assertThat(tries.entrySet())
          .allMatch(e -> e.getValue().get() == (e.getKey().startsWith("flaky") ? 2 : 1));
    }
  }

  @Test
  void aBadBufferNameIsRefusedNamingIt() {
    org.assertj.core.api.Assertions.assertThatThrownBy(
            () -> DurableBuffer.open(URI.create("redis://127.0.0.1:1"), "a b"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'a b'");
  }
}
