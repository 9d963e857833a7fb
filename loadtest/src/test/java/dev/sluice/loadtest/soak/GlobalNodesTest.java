package dev.sluice.loadtest.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GlobalNodesTest {

  @TempDir
  Path dir;

  @Test
  void everyNodeIsOnTheRedisWithAGlobalFixedTranscodeLimiterSizedByTheCaller() {
    List<String> properties = GlobalNodes.properties(
        "redis://127.0.0.1:6391", 2, Path.of("r.yaml"), List.of("max-queue=20"), List.of());

    assertThat(properties)
        .contains(
            "sluice.redis.uri=redis://127.0.0.1:6391",
            "sluice.redis.expected-nodes=2",
            "sluice.rules.file=" + Path.of("r.yaml").toAbsolutePath(),
            "sluice.limiters.transcode.limit=fixed",
            "sluice.limiters.transcode.scope=global",
            "sluice.limiters.transcode.max-queue=20");
  }

  @Test
  void theCommandLinesPropertiesComeLastSoTheyWin() {
    List<String> properties = GlobalNodes.properties(
        "redis://x",
        2,
        Path.of("r.yaml"),
        List.of("max-queue=20"),
        List.of("sluice.enabled=false"));

    assertThat(properties.get(properties.size() - 1)).isEqualTo("sluice.enabled=false");
  }

  @Test
  void theRulesFileHoldsTheGlobalHistoryRule() throws Exception {
    Path rules = GlobalNodes.writeRules(dir.resolve("rules.yaml"));

    assertThat(Files.readString(rules))
        .contains("id: history-per-account", "actor: account", "scope: global");
  }
}
