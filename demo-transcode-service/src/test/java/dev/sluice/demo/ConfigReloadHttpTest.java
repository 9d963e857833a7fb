package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --config FILE} is the plugin's properties file: with {@code sluice.reload-interval} set, a
 * limit changed in the file is in force without a restart.
 */
@Tag("integration")
class ConfigReloadHttpTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @TempDir
  Path dir;

  private static JsonNode limiter(DemoClient http, String name) throws Exception {
    for (JsonNode l : JSON.readTree(http.send("GET", "/sluice").body()).get("limiters")) {
      if (l.get("name").asText().equals(name)) {
        return l;
      }
    }
    throw new AssertionError("no limiter " + name);
  }

  @Test
  void aMaxConcurrencyChangedInTheConfigFileIsServedWithoutARestart() throws Exception {
    Path config = dir.resolve("demo.properties");
    Files.writeString(
        config, "sluice.reload-interval=1s\nsluice.limiters.rescue.max-concurrency=2\n");
    DemoSettings settings = DemoSettings.load(
        new String[] {"--config", config.toString()}, Map.of(), Map.of("server.port", "0"), 2);
    try (TranscodeService service = TranscodeService.start(settings)) {
      DemoClient http = new DemoClient(service.port());
      assertThat(limiter(http, "rescue").get("limit").asInt()).isEqualTo(2);
      int transcodeCeiling =
          limiter(http, "transcode").get("limitSource").get("maxLimit").asInt();

      Files.writeString(
          config, "sluice.reload-interval=1s\nsluice.limiters.rescue.max-concurrency=5\n");

      await()
          .atMost(Duration.ofSeconds(20))
          .until(() -> limiter(http, "rescue").get("limit").asInt() == 5);
      // the jar's max-concurrency=auto is worked out again on reload, not read as text
      assertThat(limiter(http, "transcode").get("limitSource").get("maxLimit").asInt())
          .isEqualTo(transcodeCeiling)
          .isEqualTo(16);
    }
  }
}
