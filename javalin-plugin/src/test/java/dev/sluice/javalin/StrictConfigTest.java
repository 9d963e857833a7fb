package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Strict configuration: typos fail start-up loudly, with where they came from and a suggestion. */
class StrictConfigTest {

  @TempDir
  Path dir;

  private static SluiceProperties system(Map<String, String> values) {
    return SluiceProperties.builder().env(Map.of()).system(values).build();
  }

  @Tag("integration")
  @Test
  void aMisspeltKeyInTheFileNamesTheFile() throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, "sluice.rules.reload-intervall=5s\n");
    SluiceProperties p =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();

    assertThatThrownBy(() -> TestServer.start(cfg -> cfg.properties(p), (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("from file " + f)
        .hasMessageContaining("did you mean 'sluice.rules.reload-interval'?");
  }

  @Tag("integration")
  @Test
  void strictFalseOnlyWarnsAndStarts() {
    SluiceProperties p = system(Map.of(
        "sluice.strict",
        "false",
        "sluice.limiters.work.path",
        "/api/work",
        "sluice.limiters.work.max-concurency",
        "1"));

    try (TestServer server = TestServer.start(cfg -> cfg.properties(p), (app, plugin) -> {})) {
      assertThat(server.plugin.limiter("work").orElseThrow().snapshot().limit())
          .isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY);
    }
  }

  @Tag("integration")
  @Test
  void aLimiterWithNeitherPathNorWrappedHandlerStopsStartUpAndSuggestsTheRealOne() {
    SluiceProperties p = system(Map.of("sluice.limiters.trancode.max-concurrency", "8"));

    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.properties(p).limiter("transcode", l -> l.path("/api/transcode")),
            (app, plugin) -> {}))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.trancode.path")
        .hasMessageContaining("from system property -Dsluice.limiters.trancode.max-concurrency")
        .hasMessageContaining("neither a path nor a handler")
        .hasMessageContaining("did you mean limiter 'transcode'?");
  }

  @Tag("integration")
  @Test
  void aLimiterWithoutPathIsFineWhenAHandlerIsWrapped() {
    try (TestServer server = TestServer.start(
        cfg -> cfg.limiter("rescue", l -> l.maxConcurrency(1)),
        (app, plugin) ->
            app.routes.get("/api/rescue", plugin.limited("rescue", ctx -> ctx.result("ok"))))) {
      assertThat(server.get("/api/rescue").statusCode()).isEqualTo(200);
    }
  }

  @Tag("integration")
  @Test
  void wrappingAnUnknownLimiterSuggestsTheNearestName() {
    assertThatThrownBy(() -> TestServer.start(
            cfg -> cfg.limiter("rescue", l -> l.maxConcurrency(1)), (app, plugin) -> {
              plugin.limited("rescue", ctx -> {});
              plugin.limited("rescu", ctx -> {});
            }))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("did you mean 'rescue'?");
  }
}
