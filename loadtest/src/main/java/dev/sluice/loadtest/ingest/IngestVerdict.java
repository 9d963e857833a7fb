package dev.sluice.loadtest.ingest;

import static dev.sluice.loadtest.report.Numbers.f;

import dev.sluice.loadtest.report.Headline;
import dev.sluice.loadtest.report.Verdict;
import java.util.List;

/**
 * The headline of {@code --scenario ingest}: the paced client against the aims its own integration
 * test holds it to (every record accepted, at most 1 % extra sends, within 1.1x the ideal time),
 * set against the naive client on the same service; the naive client is the reference.
 */
final class IngestVerdict {

  /** Sends beyond one per record, percent of the records. */
  static final double EXTRA_SENDS_AIM_PERCENT = 1;
  /** Time over the ideal {@code records / limit}. */
  static final double TIME_AIM_RATIO = 1.1;

  private IngestVerdict() {}

  static List<Verdict> of(IngestClients run) {
    IngestClients.Client naive = run.clients().get("naive");
    IngestClients.Client paced = run.clients().get("paced");
    return List.of(
        paced == null
            ? Verdict.notMeasured("paced: not run, nothing to judge")
            : paced(paced, naive, run.idealSeconds()),
        naive == null
            ? Verdict.notMeasured("naive: not run, no reference")
            : Verdict.info(f(
                "naive (the reference): %,d of %,d records accepted in %.2f s (%.2fx the ideal),"
                    + " %.1f%% extra sends, %,d answered 429",
                naive.accepted(),
                naive.records(),
                naive.seconds(),
                naive.seconds() / run.idealSeconds(),
                naive.extraSendsPercent(),
                naive.rejected())));
  }

  static Verdict paced(
      IngestClients.Client paced, IngestClients.Client naive, double idealSeconds) {
    double ratio = paced.seconds() / idealSeconds;
    Headline h = Headline.of("paced")
        .check(
            f("%,d of %,d records accepted", paced.accepted(), paced.records()),
            "all",
            paced.accepted() == paced.records(),
            f(" in %.2f s", paced.seconds()))
        .check(
            f("%.2fx the ideal %.2f s", ratio, idealSeconds),
            f("≤ %.1fx", TIME_AIM_RATIO),
            ratio <= TIME_AIM_RATIO,
            "")
        .check(
            f("%.1f%% extra sends", paced.extraSendsPercent()),
            f("≤ %.0f%%", EXTRA_SENDS_AIM_PERCENT),
            paced.extraSendsPercent() <= EXTRA_SENDS_AIM_PERCENT,
            f(", %,d answered 429", paced.rejected()));
    if (naive != null) {
      h.fact(f(
          "against naive's %.2f s, %.1f%% extra sends and %,d 429s",
          naive.seconds(), naive.extraSendsPercent(), naive.rejected()));
    }
    return h.verdict();
  }
}
