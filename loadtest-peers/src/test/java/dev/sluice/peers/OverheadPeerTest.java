package dev.sluice.peers;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.demo.DemoSettings;
import dev.sluice.demo.TranscodeService;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("integration")
class OverheadPeerTest {

  @TempDir
  Path dir;

  @ParameterizedTest
  @ValueSource(strings = {"none", "ratelimitplugin", "QoS", "handlers"})
  void eachPeerLetsThePingThroughWithSluiceOff(String peer) throws Exception {
    DemoSettings settings =
        Demo.settings(dir, Map.of("sluice.enabled", "false", OverheadPeers.KEY, peer));
    try (TranscodeService service = TranscodeService.start(settings)) {
      DemoClient client = new DemoClient(service.port());
      // twice: RateLimitPlugin counts the first; a peer that is not installed would fail with 500
      for (int i = 0; i < 2; i++) {
        HttpResponse<String> ping = client.send("GET", OverheadPeers.PATH);
        assertThat(ping.statusCode()).isEqualTo(200);
        assertThat(ping.body()).isEqualTo("pong");
      }
    }
  }

  @Test
  void anUnknownPeerIsRefusedNamingTheKeyTheValueAndTheChoices() {
    assertThatThrownBy(
            () -> TranscodeService.start(Demo.settings(dir, Map.of(OverheadPeers.KEY, "bucket4j"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("demo.overhead-peer=bucket4j")
        .hasMessageContaining("none|ratelimitplugin|qos");
  }
}
