package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReporterTest {

  @TempDir
  Path out;

  @Test
  void writesThePageAndTheSummaryFromOneReport() throws Exception {
    Report report = Report.titled("steady")
        .add(new Block.Verdicts("Verdict", List.of(Verdict.met("ok"))))
        .summary("scenario", "steady")
        .summary("verdicts", List.of(Verdict.met("ok")))
        .summary("durationSeconds", 5)
        .build();

    Path page = Reporter.write(report, out);

    assertThat(page).isEqualTo(out.resolve("report.html"));
    assertThat(Files.readString(page)).isEqualTo(HtmlRenderer.render(report));
    JsonNode json = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(json.fieldNames())
        .toIterable()
        .containsExactly("scenario", "verdicts", "durationSeconds");
    assertThat(json.get("verdicts").get(0).get("text").asText()).isEqualTo("ok");
    assertThat(json.get("verdicts").get(0).get("outcome").asText()).isEqualTo("MET");
  }

  @Test
  void theSummaryIsIndentedJson() throws Exception {
    Report report = Report.titled("x").summary("a", Map.of("b", 1)).build();

    assertThat(Reporter.json(report)).contains("\n  \"a\" : {\n    \"b\" : 1\n  }");
  }

  @Test
  void aReportWithoutSummaryFieldsWritesNoSummary() throws Exception {
    Reporter.write(Report.titled("overhead").text("t").build(), out);

    assertThat(out.resolve("report.html")).exists();
    assertThat(out.resolve("summary.json")).doesNotExist();
  }
}
