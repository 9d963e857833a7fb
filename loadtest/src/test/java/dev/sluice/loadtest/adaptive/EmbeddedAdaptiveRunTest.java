package dev.sluice.loadtest.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.LoadTest;
import dev.sluice.loadtest.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A short real adaptive comparison: one mix, one variant, one demo service in a child JVM, real
 * HTTP, real report. The figures are not checked (2 s on a shared machine say nothing); that every
 * request is accounted for and the limit was read from {@code /sluice} is.
 */
@Tag("integration")
class EmbeddedAdaptiveRunTest {

  @TempDir
  Path out;

  @Test
  void aVariantRunsOnItsOwnServiceAndItsFiguresAndLimitLandInTheSummary() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--scenario",
        "adaptive",
        "--mix",
        "io",
        "--overload",
        "0.5",
        "--variants",
        "netflix-gradient2",
        "--duration",
        "2s",
        "--drain",
        "3s",
        "--seed",
        "3",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    assertThat(Files.readString(report)).contains("<h2>mix io</h2>").contains("<svg");
    JsonNode results =
        new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("results");
    assertThat(results).hasSize(1);
    JsonNode r = results.get(0);
    assertThat(r.get("error").isNull()).as(r.path("error").asText()).isTrue();
    assertThat(r.get("mix").asText()).isEqualTo("io");
    assertThat(r.get("variant").asText()).isEqualTo("netflix-gradient2");
    long sent = r.get("sent").asLong();
    assertThat(sent).isGreaterThan(10); // ~20 jobs/s on 2 cores for 2 s
    assertThat(r.get("ok").asLong()).isPositive();
    assertThat(r.get("ok").asLong()
            + r.get("rejected").asLong()
            + r.get("timedOut").asLong()
            + r.get("other").asLong())
        .isEqualTo(sent);
    // tried once each: no retries
    assertThat(r.get("run").get("accounting").get("retries").asLong()).isZero();
    // the peer's limit came from /sluice, under the peer's name (read once a second)
    boolean limitRead = false;
    for (JsonNode sample : r.get("run").get("samples")) {
      limitRead |=
          sample.get("limiters").path("netflix-gradient2").path("limit").asInt() > 0;
    }
    assertThat(limitRead).isTrue();
    assertThat(Files.exists(out.resolve("server-adaptive-io-netflix-gradient2-0.5x.log")))
        .isTrue();
  }
}
