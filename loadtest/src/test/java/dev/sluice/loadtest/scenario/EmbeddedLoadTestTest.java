package dev.sluice.loadtest.scenario;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.LoadTest;
import dev.sluice.loadtest.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A short real run: two demo services in child JVMs (limiter off, then on), real HTTP, real report. */
@Tag("integration")
class EmbeddedLoadTestTest {

  @TempDir
  Path out;

  @Test
  void abRunWritesTheReportAndASummaryWhoseCountsAddUp() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--ab",
        "--scenario",
        "monday-maintenance",
        "--duration",
        "3s",
        "--rate",
        "12",
        "--cpu-millis",
        "40",
        "--drain",
        "10s",
        "--seed",
        "5",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    String html = Files.readString(report);
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("<svg")
        .contains("(target 70%)")
        .contains("without Sluice")
        .contains("with Sluice");
    JsonNode runs =
        new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("runs");
    assertThat(runs).hasSize(2);
    for (JsonNode run : runs) {
      JsonNode accounting = run.get("accounting");
      long sent = sum(accounting.get("sent"));
      long ended = 0;
      for (JsonNode stream : accounting.get("outcomes")) {
        ended += sum(stream);
      }
      assertThat(sent).isGreaterThan(45); // 12/s transcode + background for 3 s
      assertThat(ended).isEqualTo(sent);
      assertThat(accounting.get("attempts").asLong())
          .isEqualTo(sent + accounting.get("retries").asLong())
          .isEqualTo(sum(accounting.get("attemptStatuses"))
              + accounting.get("abandonedAttempts").asLong());
      assertThat(accounting.get("outcomes").get("transcode").has("200")).isTrue();
      assertThat(run.get("samples").size()).isGreaterThanOrEqualTo(3);
      assertThat(run.get("unloadedServiceMillis").asDouble()).isPositive();
    }
    // the service really ran without Sluice, then with it: /sluice listed no limiter, then both,
    // at the limit the demo derives from the cores
    assertThat(runs.get(0).get("samples").get(0).get("limiters")).isEmpty();
    JsonNode limiters = runs.get(1).get("samples").get(0).get("limiters");
    assertThat(limiters.has("transcode")).isTrue();
    assertThat(limiters.has("rescue")).isTrue();
    assertThat(limiters.get("transcode").get("limit").asInt()).isPositive();
  }

  @Test
  void theTranscodeJobsGoThroughTheGrpcDoorIntoTheSameReport() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--door",
        "grpc",
        "--duration",
        "3s",
        "--rate",
        "12",
        "--cpu-millis",
        "40",
        "--drain",
        "10s",
        "--seed",
        "5",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    assertThat(Files.readString(report)).contains("with Sluice, transcode over gRPC");
    JsonNode runs =
        new ObjectMapper().readTree(out.resolve("summary.json").toFile()).get("runs");
    assertThat(runs).hasSize(1);
    JsonNode accounting = runs.get(0).get("accounting");
    long ended = 0;
    for (JsonNode stream : accounting.get("outcomes")) {
      ended += sum(stream);
    }
    assertThat(ended).isEqualTo(sum(accounting.get("sent")));
    assertThat(accounting.get("outcomes").get("transcode").get("200").asLong()).isPositive();
    assertThat(accounting.get("attempts").asLong())
        .isEqualTo(sum(accounting.get("attemptStatuses"))
            + accounting.get("abandonedAttempts").asLong());
    // the served jobs' own figures came back through the door, as over HTTP
    assertThat(runs.get(0).get("serviceMillis").get("transcode").get("p50").asDouble())
        .isPositive();
    // over HTTP the service saw only the calibration's few jobs; the rest came through gRPC
    String log = Files.readString(out.resolve("server-sluice-on.log"));
    assertThat(log).contains("gRPC door on port");
    assertThat(log.lines().filter(l -> l.contains("POST /api/transcode ")).count())
        .isLessThanOrEqualTo(5);
  }

  private static long sum(JsonNode counts) {
    long total = 0;
    for (Map.Entry<String, JsonNode> count : counts.properties()) {
      total += count.getValue().asLong();
    }
    return total;
  }
}
