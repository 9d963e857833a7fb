package dev.sluice.loadtest.ingest;

import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

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
    List<Verdict> verdicts = new ArrayList<>();
    IngestClients.Client naive = run.clients().get("naive");
    IngestClients.Client paced = run.clients().get("paced");
    verdicts.add(
        paced == null
            ? Verdict.notMeasured("paced: not run, nothing to judge")
            : paced(paced, naive, run.idealSeconds()));
    verdicts.add(
        naive == null
            ? Verdict.notMeasured("naive: not run, no reference")
            : Verdict.info(String.format(
                Locale.ROOT,
                "naive (the reference): %,d of %,d records accepted in %.2f s (%.2fx the ideal),"
                    + " %.1f%% extra sends, %,d answered 429",
                naive.accepted(),
                naive.records(),
                naive.seconds(),
                naive.seconds() / run.idealSeconds(),
                naive.extraSendsPercent(),
                naive.rejected())));
    return verdicts;
  }

  static Verdict paced(
      IngestClients.Client paced, IngestClients.Client naive, double idealSeconds) {
    double ratio = paced.seconds() / idealSeconds;
    boolean allAccepted = paced.accepted() == paced.records();
    boolean fewExtra = paced.extraSendsPercent() <= EXTRA_SENDS_AIM_PERCENT;
    boolean inTime = ratio <= TIME_AIM_RATIO;
    String text = String.format(
        Locale.ROOT,
        "paced: %s in %.2f s, %s; %s, %,d answered 429%s",
        Verdict.withAim(
            String.format(
                Locale.ROOT, "%,d of %,d records accepted", paced.accepted(), paced.records()),
            "all"),
        paced.seconds(),
        Verdict.withAim(
            String.format(Locale.ROOT, "%.2fx the ideal %.2f s", ratio, idealSeconds),
            String.format(Locale.ROOT, "≤ %.1fx", TIME_AIM_RATIO)),
        Verdict.withAim(
            String.format(Locale.ROOT, "%.1f%% extra sends", paced.extraSendsPercent()),
            String.format(Locale.ROOT, "≤ %.0f%%", EXTRA_SENDS_AIM_PERCENT)),
        paced.rejected(),
        naive == null
            ? ""
            : String.format(
                Locale.ROOT,
                "; against naive's %.2f s, %.1f%% extra sends and %,d 429s",
                naive.seconds(),
                naive.extraSendsPercent(),
                naive.rejected()));
    return Verdict.of(allAccepted && fewExtra && inTime, text);
  }
}
