package dev.sluice.ratelimit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.SortedMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A replica started while Redis is not there divides alone, and joins the others once it is. */
@Tag("integration")
class QuotaDemandsReconnectTest {

  private static final Duration TTL = Duration.ofMinutes(1);

  @TempDir
  Path dir;

  @Test
  void aReplicaStartedBeforeRedisUsesItOnceItAnswers() throws Exception {
    // RedisServer's own start picks its port; this one needs the port before the server
    RedisServer.start()
        .close(); // fails (or skips) here as every Redis test does without the binary
    int port;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      port = socket.getLocalPort();
    }
    URI uri = URI.create("redis://127.0.0.1:" + port);
    try (RedisDemands early = RedisDemands.open(uri, Duration.ofSeconds(2))) {
      SortedMap<String, Double> alone =
          early.report("b", "early", 5, TTL).toCompletableFuture().get(10, TimeUnit.SECONDS);
      assertThat(alone).containsOnlyKeys("early");
      Process redis = new ProcessBuilder(
              "redis-server",
              "--port",
              Integer.toString(port),
              "--bind",
              "127.0.0.1",
              "--save",
              "",
              "--appendonly",
              "no",
              "--dir",
              dir.toString())
          .redirectErrorStream(true)
          .redirectOutput(dir.resolve("redis.log").toFile())
          .start();
      try {
        await().atMost(Duration.ofSeconds(10)).until(() -> answers(port));
        try (RedisDemands other = RedisDemands.open(uri, Duration.ofSeconds(2))) {
          other.report("b", "other", 7, TTL).toCompletableFuture().get(10, TimeUnit.SECONDS);
          await()
              .atMost(Duration.ofSeconds(10))
              .untilAsserted(() -> assertThat(early
                      .report("b", "early", 5, TTL)
                      .toCompletableFuture()
                      .get(10, TimeUnit.SECONDS))
                  .containsOnlyKeys("early", "other"));
        }
      } finally {
        redis.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    }
  }

  private static boolean answers(int port) {
    try (Socket s = new Socket(InetAddress.getLoopbackAddress(), port)) {
      return s.isConnected();
    } catch (IOException e) {
      return false;
    }
  }
}
