package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

class VerdictTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Test
  void aHeadlineIsItsSentence() {
    assertThat(Verdict.met("a: 94% (aim ≥ 90%)").text()).isEqualTo("a: 94% (aim ≥ 90%)");
  }

  @Test
  void aJudgedFigureReadsNameFigureAndAim() {
    Verdict v = Verdict.judged("cpu", "machine CPU mean 70 ± 5 %", "71.2 %", Outcome.MET);

    assertThat(v.text()).isEqualTo("cpu: 71.2 % (aim machine CPU mean 70 ± 5 %)");
    assertThat(v.because("held after the first minute").text())
        .isEqualTo("cpu: 71.2 % (aim machine CPU mean 70 ± 5 %); held after the first minute");
  }

  @Test
  void anOverallHeadlineIsMissedWhereAnyPartWasMissedAndNotMeasuredWhereNoneWasJudged() {
    assertThat(Verdict.overall("a", List.of(Outcome.MET, Outcome.MISSED)).outcome())
        .isEqualTo(Outcome.MISSED);
    assertThat(Verdict.overall("a", List.of(Outcome.MET, Outcome.NOT_MEASURED)).outcome())
        .isEqualTo(Outcome.MET);
    assertThat(Verdict.overall("a", List.of(Outcome.NOT_MEASURED)).outcome())
        .isEqualTo(Outcome.NOT_MEASURED);
  }

  @Test
  void aHeadlineInSummaryJsonHasTheTextAndTheOutcomeOnly() throws Exception {
    JsonNode json = JSON.valueToTree(List.of(Verdict.notMeasured("c: not run")));

    assertThat(json.toString())
        .isEqualTo("[{\"text\":\"c: not run\",\"outcome\":\"NOT_MEASURED\"}]");
  }

  @Test
  void aJudgedFigureInSummaryJsonAddsTargetDetailAndWhy() throws Exception {
    JsonNode json = JSON.valueToTree(
        Verdict.judged("cpu", "every rescue job served", "29 of 30", Outcome.MISSED)
            .because("one timed out"));

    assertThat(json.get("text").asText())
        .isEqualTo("cpu: 29 of 30 (aim every rescue job served); one timed out");
    assertThat(json.get("outcome").asText()).isEqualTo("MISSED");
    assertThat(json.get("target").asText()).isEqualTo("every rescue job served");
    assertThat(json.get("detail").asText()).isEqualTo("29 of 30");
    assertThat(json.get("why").asText()).isEqualTo("one timed out");
  }

  @Test
  void figuresAreRoundedAndAMissingOneIsSaidMissing() {
    assertThat(Verdict.withAim(Numbers.percent(0.9449), "≥ 95%")).isEqualTo("94% (aim ≥ 95%)");
    assertThat(Numbers.percent(Double.NaN)).isEqualTo("not measured");
    assertThat(Numbers.change(1.36)).isEqualTo("+36%");
    assertThat(Numbers.change(0.9)).isEqualTo("-10%");
  }

  @Test
  void anAimJudgedOnSeveralVariantsNamesWhoMetMissedAndDidNotRun() {
    assertThat(Verdict.byVariant(
            "short jobs, goodput: ",
            List.of("standing (96%)"),
            List.of("fifo (80%, 70%)"),
            List.of("cpu"),
            "not measured"))
        .isEqualTo(
            "short jobs, goodput: met by standing (96%); missed by fifo (80%, 70%); not run: cpu");
    assertThat(Verdict.byVariant("a: ", List.of(), List.of(), List.of("x", "y"), "not measured"))
        .isEqualTo("a: not measured; not run: x, y");
    assertThat(Verdict.byVariant("a: ", List.of(), List.of("z (1)"), List.of(), "not measured"))
        .isEqualTo("a: missed by z (1)");
  }
}
