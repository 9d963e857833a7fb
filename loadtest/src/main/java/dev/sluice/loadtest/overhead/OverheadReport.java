package dev.sluice.loadtest.overhead;

import static dev.sluice.loadtest.report.HtmlReport.esc;

import dev.sluice.loadtest.overhead.OverheadRun.Result;
import dev.sluice.loadtest.overhead.OverheadRun.Side;
import dev.sluice.loadtest.report.Verdict;
import java.util.Locale;

/**
 * The overhead run as a self-contained HTML page: the headline of each Sluice variant ({@link
 * OverheadVerdict}), then every service's medians over the rounds, the same figures as {@code
 * overhead.json}.
 */
final class OverheadReport {

  private OverheadReport() {}

  static String render(Result result) {
    StringBuilder html = new StringBuilder(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<title>Sluice load test: overhead</title><style>"
                + "body{font-family:system-ui,sans-serif;margin:24px;color:#222}"
                + "table{border-collapse:collapse;margin:8px 0 20px}.wide{overflow-x:auto}"
                + "td,th{border:1px solid #ccc;padding:3px 8px;text-align:right}"
                + "th:first-child,td:first-child{text-align:left}")
        .append(Verdict.CSS)
        .append("</style></head><body>\n<h1>Sluice load test: overhead</h1>\n")
        .append(Verdict.html("Verdict", OverheadVerdict.of(result)))
        .append("<p>")
        .append(esc(String.format(
            Locale.ROOT,
            "%s driven by %s, %d rounds of %.1f s per service, every service up at once and the"
                + " first of each round rotated; figures are medians over the rounds. The judge is"
                + " the server's CPU time per request, the bytes it allocates per request the"
                + " explanation. Load average %.2f before, %.2f after.",
            result.endpoint(),
            result.generator(),
            result.rounds(),
            result.secondsPerRound(),
            result.loadAverageBefore(),
            result.loadAverageAfter())))
        .append(
            "</p>\n<div class=\"wide\"><table><tr><th>service</th><th>CPU &micro;s / request</th>")
        .append("<th>CPU ratio to no limiter</th><th>rounds' range</th><th>bytes / request</th>")
        .append("<th>bytes over no limiter</th><th>requests / s</th><th>rate ratio</th>")
        .append("<th>p50 ms</th><th>p99 ms</th><th>not 2xx</th></tr>\n");
    for (Side s : result.sides()) {
      html.append("<tr><td>")
          .append(esc(s.variant() + ": " + s.description()))
          .append("</td>")
          .append(String.format(
              Locale.ROOT,
              "<td>%.1f</td><td>%.3f</td><td>%.3f-%.3f</td><td>%,.0f</td><td>%+,.0f</td>"
                  + "<td>%,.0f</td><td>%.3f</td><td>%.2f</td><td>%.2f</td><td>%d</td></tr>%n",
              s.cpuMicrosPerRequest(),
              s.cpuRatio(),
              s.cpuRatioLow(),
              s.cpuRatioHigh(),
              s.bytesPerRequest(),
              s.bytesOverBaseline(),
              s.requestsPerSecond(),
              s.throughputRatio(),
              s.p50Millis(),
              s.p99Millis(),
              s.non2xx()));
    }
    return html.append("</table></div>\n</body></html>\n").toString();
  }
}
