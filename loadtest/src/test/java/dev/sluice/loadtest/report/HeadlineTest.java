package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A headline is the sentence of its checks, judged by the worst of them. */
class HeadlineTest {

  @Test
  void aHeadlineReadsSubjectThenEachPartWithItsAim() {
    Verdict v = Headline.of("paced")
        .check("10 of 10 accepted", "all", true, " in 5 s")
        .fact("against naive's 9 s")
        .verdict();

    assertThat(v.text())
        .isEqualTo("paced: 10 of 10 accepted (aim all) in 5 s; against naive's 9 s");
    assertThat(v.outcome()).isEqualTo(Outcome.MET);
  }

  @Test
  void oneMissedCheckMakesTheHeadlineMissed() {
    Verdict v = Headline.of("cpu")
        .check("CPU 70%", "≤ 75%", true, "")
        .check("3 5xx", "0", false, "")
        .verdict();

    assertThat(v.outcome()).isEqualTo(Outcome.MISSED);
  }

  @Test
  void aHeadlineWithoutAJudgedCheckIsNotMeasured() {
    Verdict v = Headline.of("cpu")
        .fact("CPU not measured")
        .check("rescue", "all", Outcome.NOT_MEASURED, "")
        .verdict();

    assertThat(v.outcome()).isEqualTo(Outcome.NOT_MEASURED);
  }

  @Test
  void aPartJudgedWithoutAnAimReadsAsWrittenAndCountsForTheHeadline() {
    Headline h = Headline.of("at 2x")
        .judged("cpu held 70 % CPU (on target)", true)
        .judged("latency held 80 % CPU (off target)", false);

    assertThat(h.verdict())
        .isEqualTo(Verdict.missed(
            "at 2x: cpu held 70 % CPU (on target); latency held 80 % CPU (off target)"));
    assertThat(h.checks())
        .containsExactly(
            Verdict.judged("at 2x", null, "cpu held 70 % CPU (on target)", Outcome.MET),
            Verdict.judged("at 2x", null, "latency held 80 % CPU (off target)", Outcome.MISSED));
  }

  @Test
  void eachCheckKeepsItsFigureAimAndOutcomeForTables() {
    Headline h = Headline.of("cpu").check("CPU 80%", "≤ 75%", false, "").fact("note");

    assertThat(h.checks())
        .containsExactly(Verdict.judged("cpu", "≤ 75%", "CPU 80%", Outcome.MISSED));
  }

  @Test
  void summaryJsonFromAReportHoldsTheHeadlineAsTextAndOutcome() throws Exception {
    Verdict v = Headline.of("a \"quoted\" run").check("1 5xx", "0", false, "").verdict();
    Report report = Report.titled("t")
        .add(new Block.Verdicts("Verdict", List.of(v)))
        .summary("verdicts", List.of(v))
        .build();

    JsonNode json = new ObjectMapper().readTree(Reporter.json(report));

    assertThat(json.get("verdicts").get(0).get("text").asText())
        .isEqualTo("a \"quoted\" run: 1 5xx (aim 0)");
    assertThat(json.get("verdicts").get(0).get("outcome").asText()).isEqualTo("MISSED");
    assertThat(HtmlRenderer.render(report))
        .contains("<p class=\"verdict miss\">a &quot;quoted&quot; run: 1 5xx (aim 0)</p>");
  }
}
