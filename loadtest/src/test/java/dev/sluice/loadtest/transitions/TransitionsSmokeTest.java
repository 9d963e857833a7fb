package dev.sluice.loadtest.transitions;

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
 * A short real run of the scenario's wiring: the reload part on a demo in a child JVM (its
 * properties file rewritten with 40 callers waiting), through to the report and the summary.
 */
@Tag("integration")
class TransitionsSmokeTest {

  @TempDir
  Path out;

  @Test
  void theReloadPartRunsEndToEndAndItsVerdictIsInTheReportAndTheSummary() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--scenario",
        "transitions",
        "--variants",
        "reload",
        "--duration",
        "5s",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    String html = Files.readString(report);
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("Load average")
        .contains("--scenario transitions --duration 5s --variants reload")
        .contains("reload with 40 waiters: 0 (aim 0) lost, 0 (aim 0) answered twice");
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    JsonNode reload = summary.path("verdicts").path("reload").get(0);
    assertThat(reload.path("outcome").asText()).as(reload.toString()).isEqualTo("met");
    assertThat(summary.path("figures").path("reload").path("requests answered").asDouble())
        .isEqualTo(42);
    assertThat(summary.path("machine").asText()).contains("cores");
  }
}
