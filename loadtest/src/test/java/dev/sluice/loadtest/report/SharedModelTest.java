package dev.sluice.loadtest.report;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.report.Block.Cell;
import dev.sluice.loadtest.report.Block.Table.Column;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Percentiles;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The one model every experiment reports through, end to end: what it escapes, how it lays out a
 * table of figures, and how a missed check reaches the page, {@code summary.json} and the console.
 */
class SharedModelTest {

  /** Every character that means something in HTML text or in a quoted attribute. */
  private static final String SPECIAL = "&<>\"'";

  private static final String ESCAPED = "&amp;&lt;&gt;&quot;&#39;";

  @TempDir
  Path out;

  @Test
  void everyPieceOfTextOnThePageIsEscapedWhateverBlockItIsIn() {
    Report report = Report.titled(SPECIAL)
        .text(SPECIAL)
        .add(new Block.Items(List.of(SPECIAL)))
        .add(new Block.Preformatted(SPECIAL))
        .add(new Block.Verdicts(SPECIAL, List.of(Verdict.missed(SPECIAL))))
        .add(Block.Section.of(SPECIAL, new Block.Chart(SPECIAL, "<svg></svg>")))
        .add(
            Block.Table.of(List.of(Cell.withAim(SPECIAL, SPECIAL))).row(SPECIAL).build())
        .build();

    String html = HtmlRenderer.render(report);

    // title twice, text, item, pre, verdicts heading and line, section heading, caption,
    // table header and its aim, the cell
    assertThat(count(html, ESCAPED)).isEqualTo(12);
    assertThat(html).doesNotContain(SPECIAL);
    String body = html.substring(html.indexOf("<body>"));
    for (char c : "\"'".toCharArray()) {
      // what is left of a quote is markup: attributes the renderer writes itself
      assertThat(body.replaceAll("(class|style|colspan|lang)=\"[^\"]*\"", ""))
          .as("raw %s outside the renderer's own attributes", c)
          .doesNotContain(String.valueOf(c));
    }
  }

  @Test
  void aNumberColumnShowsEachFigureAsFormattedAndAlignsRightAfterTheNameColumn() {
    record Run(String name, long requests, double p99) {}
    Block.Table table = Block.Table.of(
        List.of(
            Column.<Run>of("variant", Run::name),
            Column.<Run>of("requests", Run::requests),
            Column.<Run>of("p99 ms", r -> Numbers.num(r.p99(), 2))),
        List.of(new Run("fifo", 1200, 81.234), new Run("fair", 7, Double.NaN)));

    String html = HtmlRenderer.render(Report.titled("t").add(table).build());

    assertThat(html)
        .contains("<tr><td>fifo</td><td>1200</td><td>81.23</td></tr>")
        .contains("<tr><td>fair</td><td>7</td><td>-</td></tr>")
        .contains("td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}")
        .contains("th:first-child,td:first-child{text-align:left}");
    assertThat(table.lines())
        .containsExactly(
            "variant fifo, requests 1200, p99 ms 81.23", "variant fair, requests 7, p99 ms -");
  }

  @Test
  void aMissedCheckMakesItsHeadlineMissedOnThePageInSummaryJsonAndOnTheConsole() throws Exception {
    Headline h = Headline.of("fair")
        .check("Jain's index 0.97", "≥ 0.95", true, "")
        .check("lowest polite host 80%", "≥ 90%", false, "");
    Report report = Report.titled("greedy-host")
        .add(Block.Section.of("variants", new Block.Verdicts("Verdict", List.of(h.verdict()))))
        .summary("verdicts", List.of(h.verdict()))
        .build();

    String console = console(() -> Reporter.write(report, out));

    JsonNode verdict = new ObjectMapper()
        .readTree(out.resolve("summary.json").toFile())
        .get("verdicts")
        .get(0);
    assertThat(verdict.get("outcome").asText()).isEqualTo("MISSED");
    assertThat(verdict.get("text").asText())
        .isEqualTo("fair: Jain's index 0.97 (aim ≥ 0.95); lowest polite host 80% (aim ≥ 90%)");
    assertThat(HtmlRenderer.render(report))
        .contains("<p class=\"verdict miss\">fair: Jain&#39;s index 0.97 (aim ≥ 0.95);");
    assertThat(console.lines())
        .containsExactly("verdict [missed] fair: Jain's index 0.97 (aim ≥ 0.95);"
            + " lowest polite host 80% (aim ≥ 90%)");
  }

  @Test
  void aReportFindsItsVerdictsInsideSectionsAndGridsInPageOrder() {
    Report report = Report.titled("t")
        .add(new Block.Verdicts("top", List.of(Verdict.met("a"))))
        .add(Block.Section.of(
            "mix",
            new Block.Grid(2, List.of(new Block.Verdicts("inner", List.of(Verdict.missed("b"))))),
            new Block.Verdicts("after", List.of(Verdict.notMeasured("c")))))
        .text("no verdict here")
        .build();

    assertThat(report.verdicts()).extracting(Verdict::text).containsExactly("a", "b", "c");
  }

  @Test
  void aTableOfChecksColoursEachOutcomeAndLeavesTheUnjudgedPlain() {
    Block.Table t = Block.Table.checks(
        "variant",
        List.of(
            Verdict.judged("cpu", "70 ± 5 %", "71.0 %", Outcome.MET),
            Verdict.judged("cpu", "all served", "29 of 30", Outcome.MISSED),
            Verdict.judged("cpu", "a 40 s window", "shorter", Outcome.NOT_MEASURED)));

    assertThat(t.header())
        .containsExactly(
            Cell.of("variant"), Cell.of("target"), Cell.of("verdict"), Cell.of("figure"));
    assertThat(t.rows())
        .extracting(row -> row.get(2))
        .containsExactly(
            Cell.judged("met", true), Cell.judged("missed", false), Cell.of("not measured"));
    assertThat(t.rows().get(1))
        .extracting(Cell::text)
        .containsExactly("cpu", "all served", "missed", "29 of 30");
  }

  @Test
  void aTableOfAMapHasARowPerEntryInTheMapsOrder() {
    Map<String, Long> answers = new LinkedHashMap<>();
    answers.put("200", 40L);
    answers.put("429", 2L);

    assertThat(Block.Table.of("answer", "count").rows(answers).build().lines())
        .containsExactly("answer 200, count 40", "answer 429, count 2");
  }

  @Test
  void aLatencyTableHasARowPerDistributionWithItsCountAndPercentiles() {
    Map<String, Percentiles> millis = new LinkedHashMap<>();
    millis.put("quiet", new Percentiles(10, 1, 2, 3.456, 4, 5));
    millis.put("flood", new Percentiles(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN, 0));

    assertThat(RunReport.latencyTable("phase (ms)", millis).lines())
        .containsExactly(
            "phase (ms) quiet, n 10, p50 1.00, p90 2.00, p99 3.46, p99.9 4.00, max 5.00",
            "phase (ms) flood, n 0, p50 -, p90 -, p99 -, p99.9 -, max 0.00");
  }

  @Test
  void theMachineParagraphNamesTheCoresAndTheLoadBeforeAndAfter() {
    Report report = Report.titled("t")
        .machine("1.0 / 0.5 / 0.2", "2.0 / 1.0 / 0.4", "Shared.")
        .build();

    assertThat(report.blocks())
        .containsExactly(new Block.Text("Machine: " + Report.machine()
            + ". Load average (1 / 5 / 15 min) before 1.0 / 0.5 / 0.2, after 2.0 / 1.0 / 0.4."
            + " Shared."));
    assertThat(Report.machine())
        .startsWith(Runtime.getRuntime().availableProcessors() + " cores, ")
        .contains("JDK ");
  }

  @Test
  void whereARunRanIsInTheSummaryAndOnThePage() {
    Report report = Report.titled("t")
        .summary("scenario", "t")
        .ran("java -jar loadtest.jar --scenario t", "1.0 / 0.5 / 0.2", "2.0 / 1.0 / 0.4", "Shared.")
        .build();

    assertThat(report.summary())
        .containsExactly(
            Map.entry("scenario", "t"),
            Map.entry("command", "java -jar loadtest.jar --scenario t"),
            Map.entry("machine", Report.machine()),
            Map.entry("loadAverageBefore", "1.0 / 0.5 / 0.2"),
            Map.entry("loadAverageAfter", "2.0 / 1.0 / 0.4"));
    assertThat(report.blocks())
        .containsExactly(
            new Block.Text("Machine: " + Report.machine()
                + ". Load average (1 / 5 / 15 min) before 1.0 / 0.5 / 0.2, after 2.0 / 1.0 / 0.4."
                + " Shared."),
            new Block.Text("Command: java -jar loadtest.jar --scenario t"));
  }

  @Test
  void percentilesByNameInTheirOrder() {
    assertThat(new Percentiles(10, 1, 2, 3, 4, 5).byName())
        .containsExactly(
            Map.entry("p50", 1.0),
            Map.entry("p90", 2.0),
            Map.entry("p99", 3.0),
            Map.entry("p99.9", 4.0),
            Map.entry("max", 5.0));
  }

  private interface Action {
    void run() throws Exception;
  }

  private static String console(Action action) throws Exception {
    PrintStream console = System.out;
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      action.run();
    } finally {
      System.setOut(console);
    }
    return captured.toString(StandardCharsets.UTF_8);
  }

  private static int count(String text, String part) {
    Matcher m = Pattern.compile(Pattern.quote(part)).matcher(text);
    int n = 0;
    while (m.find()) {
      n++;
    }
    return n;
  }
}
