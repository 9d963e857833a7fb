package dev.sluice.loadtest.ingest;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The ingest report opens with the paced client against its aims, beside the naive one. */
class IngestVerdictTest {

  private static IngestClients.Client client(long accepted, long sends, double seconds) {
    return new IngestClients.Client(
        10_000,
        accepted,
        sends,
        sends - accepted,
        seconds,
        100.0 * (sends - 10_000) / 10_000,
        0,
        new long[0],
        new long[0]);
  }

  private static IngestClients run(IngestClients.Client naive, IngestClients.Client paced) {
    Map<String, IngestClients.Client> clients = new LinkedHashMap<>();
    if (naive != null) {
      clients.put("naive", naive);
    }
    if (paced != null) {
      clients.put("paced", paced);
    }
    return new IngestClients("http://127.0.0.1:1/api/ping", 2_000, 5.0, 1.5, clients);
  }

  @Test
  void aPacedClientInTimeWithoutExtraSendsMeetsEveryAim() {
    List<Verdict> verdicts =
        IngestVerdict.of(run(client(10_000, 44_000, 12.3), client(10_000, 10_020, 5.1)));

    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.MET);
    assertThat(verdicts.get(0).text())
        .isEqualTo("paced: 10,000 of 10,000 records accepted (aim all) in 5.10 s; 1.02x the ideal"
            + " 5.00 s (aim ≤ 1.1x); 0.2% extra sends (aim ≤ 1%), 20 answered 429; against naive's"
            + " 12.30 s, 340.0% extra sends and 34,000 429s");
    assertThat(verdicts.get(1).outcome()).isEqualTo(Outcome.INFO);
    assertThat(verdicts.get(1).text()).startsWith("naive (the reference): 10,000 of 10,000");
  }

  @Test
  void aSlowPacedClientMissesItsTimeAim() {
    Verdict paced = IngestVerdict.of(run(null, client(10_000, 10_000, 6.0))).get(0);

    assertThat(paced.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(paced.text())
        .contains("1.20x the ideal 5.00 s (aim ≤ 1.1x)")
        .doesNotContain("naive");
  }

  @Test
  void aClientThatDidNotRunIsNotMeasured() {
    List<Verdict> verdicts = IngestVerdict.of(run(client(10_000, 44_000, 12.3), null));

    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.NOT_MEASURED);
    assertThat(verdicts.get(0).text()).isEqualTo("paced: not run, nothing to judge");
  }

  @Test
  void theReportOpensWithTheHeadline() {
    String html = HtmlRenderer.render(IngestReport.of(run(null, client(9_990, 10_000, 5.1))));

    assertThat(html).contains("<p class=\"verdict miss\">paced: 9,990 of 10,000 records accepted");
    assertThat(html.indexOf("class=\"verdicts\"")).isLessThan(html.indexOf("<table>"));
  }

  @Test
  void exactlyTheAimsIsMetAndOneRecordShortIsMissed() {
    // 5.50 s is 1.1x the ideal 5 s; 10,100 sends are 1% extra
    Verdict atAims = IngestVerdict.of(run(null, client(10_000, 10_100, 5.5))).get(0);
    Verdict oneShort = IngestVerdict.of(run(null, client(9_999, 10_000, 5.0))).get(0);

    assertThat(atAims.outcome()).isEqualTo(Outcome.MET);
    assertThat(oneShort.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(oneShort.text()).contains("9,999 of 10,000 records accepted (aim all)");
  }
}
