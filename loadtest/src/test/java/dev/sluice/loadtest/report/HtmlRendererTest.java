package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Block.Cell;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HtmlRendererTest {

  private static String render(Block... blocks) {
    return HtmlRenderer.render(new Report("test <1>", List.of(blocks), Map.of()));
  }

  @Test
  void aPageIsSelfContainedAndTitledEscaped() {
    String html = render();

    assertThat(html)
        .startsWith("<!DOCTYPE html>\n<html lang=\"en\">")
        .contains("<title>Sluice load test: test &lt;1&gt;</title><style>")
        .contains("<h1>Sluice load test: test &lt;1&gt;</h1>")
        .endsWith("</body></html>\n")
        .doesNotContain("<script")
        .doesNotContain("<link");
  }

  @Test
  void eachVerdictIsAParagraphInTheColourOfItsOutcomeEscaped() {
    String html = render(new Block.Verdicts(
        "Verdict",
        List.of(
            Verdict.met("a: 94% (aim ≥ 90%)"),
            Verdict.missed("b: p99 80 ms (aim < 50 ms)"),
            Verdict.notMeasured("c: \"x\" not run"),
            Verdict.info("d: the reference"))));

    assertThat(html)
        .contains("<section class=\"verdicts\"><h2>Verdict</h2>")
        .contains("<p class=\"verdict met\">a: 94% (aim ≥ 90%)</p>")
        .contains("<p class=\"verdict miss\">b: p99 80 ms (aim &lt; 50 ms)</p>")
        .contains("<p class=\"verdict none\">c: &quot;x&quot; not run</p>")
        .contains("<p class=\"verdict info\">d: the reference</p>");
  }

  @Test
  void noVerdictsSaysNothingWasMeasured() {
    assertThat(render(new Block.Verdicts("Verdict", List.of())))
        .contains("<p class=\"verdict none\">nothing was run, so nothing was measured</p>");
  }

  @Test
  void aTableHasItsHeaderRowThenARowPerLineEveryCellEscaped() {
    String html =
        render(Block.Table.of("name", "n").row("a<b", 3).row("c", "d & e").build());

    assertThat(html).contains("""
            <table><tr><th>name</th><th>n</th></tr>
            <tr><td>a&lt;b</td><td>3</td></tr>
            <tr><td>c</td><td>d &amp; e</td></tr>
            </table>""");
  }

  @Test
  void aTableWithoutHeaderHasNoHeaderRow() {
    assertThat(render(Block.Table.of().row("k", 1).build()))
        .contains("<table><tr><td>k</td><td>1</td></tr>")
        .doesNotContain("<th>");
  }

  @Test
  void cellsCarryTheirAimTheirJudgementAndTheirSpan() {
    String html = render(Block.Table.of(List.of(Cell.of("v"), Cell.withAim("p99", "< 50")))
        .row("a", Cell.judged("40", true))
        .row("b", Cell.judged("80", false))
        .row(Cell.of("not run: x").marked(Cell.Mark.MISSED).spanning(2))
        .row("c", Cell.of("reasons").marked(Cell.Mark.PROSE))
        .build());

    assertThat(html)
        .contains("<th>p99<small>aim &lt; 50</small></th>")
        .contains("<td class=\"met\">40</td>")
        .contains("<td class=\"miss\">80</td>")
        .contains("<td colspan=\"2\" class=\"miss\">not run: x</td>")
        .contains("<td class=\"prose\">reasons</td>");
  }

  @Test
  void aComparisonHasAColumnPerItemAndARowPerFigure() {
    String html = render(Block.Table.comparing(List.of(1, 2), i -> "run " + i)
        .row("twice", i -> Integer.toString(2 * i))
        .build());

    assertThat(html)
        .contains("<tr><th></th><th>run 1</th><th>run 2</th></tr>\n"
            + "<tr><td>twice</td><td>2</td><td>4</td></tr>");
  }

  @Test
  void sectionsNestOneHeadingLevelDown() {
    String html = render(Block.Section.of(
        "kind", new Block.Text("t"), Block.Section.of("variant", new Block.Text("u"))));

    assertThat(html).contains("<h2>kind</h2>\n<p>t</p>\n<h3>variant</h3>\n<p>u</p>");
  }

  @Test
  void aChartIsInlinedAsItsSvgUnderItsCaption() {
    String html = render(
        new Block.Grid(2, List.of(new Block.Chart("CPU & limit", "<svg width=\"100%\"></svg>"))));

    assertThat(html)
        .contains("<div class=\"grid\" style=\"grid-template-columns:repeat(2,minmax(0,1fr))\">")
        .contains("<div><h4>CPU &amp; limit</h4><svg width=\"100%\"></svg></div>");
  }

  @Test
  void textListsAndPreformattedTextAreEscaped() {
    String html = render(
        new Block.Text("a < b"),
        new Block.Items(List.of("x > y")),
        new Block.Preformatted("line 1\n<line 2>"));

    assertThat(html)
        .contains("<p>a &lt; b</p>")
        .contains("<ul>\n<li>x &gt; y</li>\n</ul>")
        .contains("<pre>line 1\n&lt;line 2&gt;</pre>");
  }
}
