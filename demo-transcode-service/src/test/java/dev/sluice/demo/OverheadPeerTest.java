package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.http.HttpResponse;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Tag("integration")
class OverheadPeerTest {

  @ParameterizedTest
  @ValueSource(strings = {"none", "ratelimitplugin", "QoS", "handlers"})
  void eachPeerLetsThePingThroughWithSluiceOff(String peer) throws Exception {
    DemoSettings settings = DemoSettings.load(
        new String[0],
        Map.of(),
        Map.of("server.port", "0", "sluice.enabled", "false", OverheadPeer.KEY, peer),
        2);
    try (TranscodeService service = TranscodeService.start(settings)) {
      DemoClient client = new DemoClient(service.port());
      // twice: RateLimitPlugin counts the first; a peer that is not installed would fail with 500
      for (int i = 0; i < 2; i++) {
        HttpResponse<String> ping = client.send("GET", OverheadPeer.PATH);
        assertThat(ping.statusCode()).isEqualTo(200);
        assertThat(ping.body()).isEqualTo("pong");
      }
    }
  }

  @Test
  void anUnknownPeerIsRefusedNamingTheKeyTheValueAndTheChoices() {
    assertThatThrownBy(() -> OverheadPeer.of("bucket4j"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("demo.overhead-peer=bucket4j")
        .hasMessageContaining("none|ratelimitplugin|qos");
  }
}
