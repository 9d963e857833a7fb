package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code redis-sentinel://} URIs: the master is found through a real sentinel. */
@Tag("integration")
class SentinelTest {

  @TempDir Path dir;

  @Test
  void aSentinelUriReachesTheMasterItNames() throws IOException {
    try (RedisServer master = RedisServer.start()) {
      int port = RedisServer.freePort();
      Path conf = dir.resolve("sentinel.conf");
      Files.writeString(conf, String.join("\n",
          "port " + port,
          "bind 127.0.0.1",
          "sentinel monitor sluice 127.0.0.1 " + master.port() + " 1",
          ""));
      Process sentinel = new ProcessBuilder("redis-server", conf.toString(), "--sentinel")
          .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      try (Nodes nodes = new Nodes()) {
        URI uri = URI.create("redis-sentinel://127.0.0.1:" + port + "#sluice");
        assertThat(new RedisStoreProvider().supports(uri)).isTrue();
        RateRequest request = new RateRequest("sentinel-" + UUID.randomUUID(), "a",
            Algorithm.TOKEN_BUCKET, RateLimit.of(3, Duration.ofHours(1)), 1);
        // the sentinel takes a moment to start listening
        RedisStores node = await().atMost(Duration.ofSeconds(10)).until(
            () -> nodes.open(uri, Duration.ofSeconds(1), 1, FailurePolicy.DENY),
            n -> n.state() == RedisState.UP);

        long admitted = 0;
        for (int i = 0; i < 5; i++) {
          admitted += Nodes.decide(node, request, Duration.ofSeconds(2)).allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(3);
        assertThat(node.degradedDecisions()).isZero();
        assertThat(node.describe()).startsWith("redis-sentinel://127.0.0.1:" + port + "#sluice");
      } finally {
        sentinel.destroyForcibly();
      }
    }
  }
}
