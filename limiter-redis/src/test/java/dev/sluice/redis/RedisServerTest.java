package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The tests' own redis-server: one that cannot start says why at once, not after 30 s. */
@Tag("integration")
class RedisServerTest {

  @Test
  @Timeout(20)
  void aServerThatExitsAtStartFailsAtOnceWithItsOwnWords() {
    assertThatThrownBy(() -> RedisServer.start("--no-such-directive", "x"))
        .hasMessageContaining("exited")
        .hasStackTraceContaining("no-such-directive");
  }

  @Test
  void aClusterNodeListensOnItsOwnBusPort() throws Exception {
    java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("sluice-bus");
    try (RedisServer node = RedisServer.startClusterNode(dir, 0, Duration.ofSeconds(5))) {
      org.assertj.core.api.Assertions.assertThat(node.command("CONFIG", "GET", "cluster-port"))
          .doesNotContain("\n0\n")
          .isNotBlank();
    }
  }
}
