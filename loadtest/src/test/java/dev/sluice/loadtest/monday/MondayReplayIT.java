package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replay end to end for a few seconds with tiny clips: real ffmpeg makes the library, two
 * variants each get a fresh demo service with the ffmpeg engine, and the report and summary are
 * written. The figures are not judged (seconds on a shared machine say nothing); that every kind
 * of traffic was served and counted, and that the declared cost is accepted, is.
 */
@Tag("integration")
class MondayReplayIT {

  @TempDir
  Path out;

  @Test
  void theReplayRunsEachVariantOnItsOwnFfmpegServiceAndReportsIt() throws Exception {
    ClipLibrary tiny = ClipLibrary.plan(List.of(1, 2), List.of(180));
    Options options = Options.parse(
        "--embedded",
        "--scenario",
        "monday",
        "--variants",
        "none,cpu+cost",
        "--duration",
        "6s",
        "--drain",
        "20s",
        "--out",
        out.toString());

    Path report = new MondayReplay(tiny).run(options);

    assertThat(Files.readString(report)).contains("Verdicts").contains("<svg").contains("cpu+cost");
    assertThat(tiny.missing(out.resolve("clips"))).isEmpty(); // cached for the next run
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    JsonNode results = summary.get("results");
    assertThat(results).hasSize(2);
    for (JsonNode r : results) {
      assertThat(r.get("error").isNull()).as(r.path("error").asText()).isTrue();
      // without a limiter 32 jobs start at once: they may all end after the window, in the drain
      assertThat(r.get("tries").get("maintenance").path("200").asLong())
          .as(r.toString())
          .isPositive();
      assertThat(r.get("rescueJobs").asLong()).isPositive();
      assertThat(r.get("historyLookups").asLong()).isPositive();
      assertThat(r.get("cpu")).isNotEmpty();
      // every job declared its cost; none was refused for it
      assertThat(r.get("tries").get("maintenance").path("422").asLong()).isZero();
    }
    assertThat(results.get(1).get("completed").asLong()).isPositive();
    assertThat(summary.get("verdicts").get(0).get("line").asText()).startsWith("none: ");
    assertThat(Files.exists(out.resolve("server-monday-cpu-cost.log"))).isTrue();
  }
}
