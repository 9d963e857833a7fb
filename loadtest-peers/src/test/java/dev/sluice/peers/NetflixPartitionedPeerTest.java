package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.sluice.demo.DemoSettings;
import dev.sluice.demo.TranscodeService;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NetflixPartitionedPeerTest {

  @TempDir
  Path dir;

  private DemoSettings settings(Map<String, String> properties) {
    return Demo.settings(dir, properties);
  }

  private static NetflixPartitionedPeer peer(DemoSettings settings) {
    return NetflixPartitionedPeer.of(settings::get);
  }

  @Test
  void badSettingsAreRefusedNamingTheKeyAndTheValue() {
    assertThatThrownBy(
            () -> peer(settings(Map.of(NetflixPartitionedPeer.KEY, "netflix-partitioned"))))
        .hasMessageContaining(NetflixPartitionedPeer.PARTITIONS);
    assertThatThrownBy(() -> peer(settings(Map.of(
            NetflixPartitionedPeer.KEY,
            "netflix-partitioned",
            NetflixPartitionedPeer.PARTITIONS,
            "a,b",
            NetflixPartitionedPeer.LIMIT,
            "zero"))))
        .hasMessageContaining(NetflixPartitionedPeer.LIMIT)
        .hasMessageContaining("'zero'");
  }

  @Test
  void thirtyTwoEqualPartitionsAreAccepted() {
    String hosts = String.join(
        ",",
        java.util.stream.IntStream.rangeClosed(1, 32)
            .mapToObj(i -> "maintenance-host-" + i)
            .toList());
    assertThat(peer(settings(Map.of(
            NetflixPartitionedPeer.KEY,
            "netflix-partitioned",
            NetflixPartitionedPeer.PARTITIONS,
            hosts))))
        .hasToString("netflix-partitioned (limit 1, 32 partitions by X-Host-Id)");
  }

  /**
   * Limit 1, partitions a and b: with a's one job running, a second job of a is refused at once (no
   * queue) while b's still runs (each partition may always run one, whatever the total); a caller in
   * no partition only gets what the total leaves, so it is refused too.
   */
  @Test
  @Tag("integration")
  void aFullPartitionIsRefusedAtOnceWhileOtherPartitionsStillRun() throws Exception {
    DemoSettings settings = settings(Map.of(
        "sluice.limiters.transcode.path",
        "/api/transcode-unguarded",
        NetflixPartitionedPeer.KEY,
        "netflix-partitioned",
        NetflixPartitionedPeer.PARTITIONS,
        "a, b",
        NetflixPartitionedPeer.LIMIT,
        "1"));
    try (TranscodeService service = TranscodeService.start(settings)) {
      DemoClient client = new DemoClient(service.port());
      CompletableFuture<HttpResponse<String>> longJob =
          client.sendAsync("POST", "/api/transcode?cpuMillis=1500", "X-Host-Id", "a");
      // probed without a header: such a probe never keeps a's job out (a is under its own share)
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> client.send("POST", "/api/transcode?cpuMillis=1").statusCode() == 429);
      assertThat(client
              .send("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "a")
              .statusCode())
          .isEqualTo(429);
      assertThat(client
              .send("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "b")
              .statusCode())
          .isEqualTo(200);
      assertThat(longJob.get().statusCode()).isEqualTo(200);
      // released after the job: a runs again
      assertThat(client
              .send("POST", "/api/transcode?cpuMillis=1", "X-Host-Id", "a")
              .statusCode())
          .isEqualTo(200);
    }
  }
}
