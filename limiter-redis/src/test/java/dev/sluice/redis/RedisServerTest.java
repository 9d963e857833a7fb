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
  @Timeout(60)
  void aServerStartedByAJvmThatIsKilledDoesNotOutliveIt() throws Exception {
    Process child = new ProcessBuilder(
            java.nio.file.Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(),
            "-cp",
            System.getProperty("java.class.path"),
            StartsAServer.class.getName())
        .redirectError(ProcessBuilder.Redirect.INHERIT)
        .start();
    long server;
    try (java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(
        child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8))) {
      server = Long.parseLong(out.readLine().trim());
      org.assertj.core.api.Assertions.assertThat(ProcessHandle.of(server))
          .as("the child's redis-server runs")
          .hasValueSatisfying(
              p -> org.assertj.core.api.Assertions.assertThat(p.isAlive()).isTrue());
    } finally {
      child.destroyForcibly().waitFor(); // SIGKILL: no shutdown hook, no close()
    }
    org.awaitility.Awaitility.await("redis-server " + server + " gone after its JVM was killed")
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> ProcessHandle.of(server).map(p -> !p.isAlive()).orElse(true));
  }

  /** The killed JVM of the test above: starts a server, says its pid, waits to be killed. */
  static final class StartsAServer {
    public static void main(String[] args) throws Exception {
      RedisServer server = RedisServer.start();
      System.out.println(server.pid());
      System.out.flush();
      System.in.read(); // the test never writes: blocks until the process is killed
    }
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
