package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class VerdictTest {

  @Test
  void eachHeadlineIsAParagraphInTheColourOfItsOutcomeEscaped() {
    String html = Verdict.html(
        "Verdict",
        List.of(
            Verdict.met("a: 94% (aim ≥ 90%)"),
            Verdict.missed("b: p99 80 ms (aim < 50 ms)"),
            Verdict.notMeasured("c: not run"),
            Verdict.info("d: the reference")));

    assertThat(html)
        .contains("<p class=\"verdict met\">a: 94% (aim ≥ 90%)</p>")
        .contains("<p class=\"verdict miss\">b: p99 80 ms (aim &lt; 50 ms)</p>")
        .contains("<p class=\"verdict none\">c: not run</p>")
        .contains("<p class=\"verdict info\">d: the reference</p>");
  }

  @Test
  void anEmptyListSaysNothingWasMeasured() {
    assertThat(Verdict.html("Verdict", List.of()))
        .contains("<p class=\"verdict none\">nothing was run, so nothing was measured</p>");
  }

  @Test
  void figuresAreRoundedAndAMissingOneIsSaidMissing() {
    assertThat(Verdict.withAim(Verdict.percent(0.9449), "≥ 95%")).isEqualTo("94% (aim ≥ 95%)");
    assertThat(Verdict.percent(Double.NaN)).isEqualTo("not measured");
    assertThat(Verdict.change(1.36)).isEqualTo("+36%");
    assertThat(Verdict.change(0.9)).isEqualTo("-10%");
  }
}
