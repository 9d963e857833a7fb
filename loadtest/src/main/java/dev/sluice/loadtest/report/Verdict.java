package dev.sluice.loadtest.report;

import java.util.List;
import java.util.Locale;

/**
 * One headline of a report: a sentence or two that states an experiment's outcome in numbers, the
 * aim written beside each figure it judges, and whether the aim was met. Every report opens with
 * its headlines, green where met, red where missed, grey where not measured or not run.
 *
 * @param text the headline, plain text
 * @param outcome met, missed, not measured, or a reference without an aim
 */
public record Verdict(String text, Outcome outcome) {

  /** How a headline is coloured. */
  public enum Outcome {
    /** Every aim the headline states was met. */
    MET("met"),
    /** At least one was missed. */
    MISSED("miss"),
    /** The figure it needs is missing: the variant did not run or the run could not measure it. */
    NOT_MEASURED("none"),
    /** A figure stated for comparison, with no aim of its own. */
    INFO("info");

    private final String css;

    Outcome(String css) {
      this.css = css;
    }

    /** The CSS class of the headline: {@code met}, {@code miss}, {@code none} or {@code info}. */
    public String css() {
      return css;
    }

    /** {@link #MET} or {@link #MISSED}. */
    public static Outcome of(boolean met) {
      return met ? MET : MISSED;
    }
  }

  /** The rules the headlines need, for a report's {@code <style>}. */
  public static final String CSS =
      ".verdicts{margin:8px 0 16px}.verdict{margin:4px 0;padding:4px 8px;"
          + "border-left:6px solid #999;max-width:70em}.verdict.met{background:#e3f4e1;border-color:#2e7d32}"
          + ".verdict.miss{background:#fde0dc;border-color:#c62828}.verdict.none{background:#eee;"
          + "border-color:#999}.verdict.info{border-color:#90a4ae}";

  public static Verdict met(String text) {
    return new Verdict(text, Outcome.MET);
  }

  public static Verdict missed(String text) {
    return new Verdict(text, Outcome.MISSED);
  }

  public static Verdict of(boolean met, String text) {
    return new Verdict(text, Outcome.of(met));
  }

  public static Verdict notMeasured(String text) {
    return new Verdict(text, Outcome.NOT_MEASURED);
  }

  public static Verdict info(String text) {
    return new Verdict(text, Outcome.INFO);
  }

  /**
   * The headlines as an HTML block, to open a report with: a heading and a paragraph each.
   *
   * @param heading e.g. "Verdict"
   */
  public static String html(String heading, List<Verdict> verdicts) {
    StringBuilder html = new StringBuilder("<section class=\"verdicts\"><h2>")
        .append(HtmlReport.esc(heading))
        .append("</h2>\n");
    if (verdicts.isEmpty()) {
      html.append("<p class=\"verdict none\">nothing was run, so nothing was measured</p>\n");
    }
    for (Verdict v : verdicts) {
      html.append("<p class=\"verdict ")
          .append(v.outcome().css())
          .append("\">")
          .append(HtmlReport.esc(v.text()))
          .append("</p>\n");
    }
    return html.append("</section>\n").toString();
  }

  /** {@code 94% (aim ≥ 95%)}: a figure and, beside it, the aim it is judged by. */
  public static String withAim(String figure, String aim) {
    return figure + " (aim " + aim + ")";
  }

  /** A share as a whole percent, {@code 94%}; {@code not measured} for NaN. */
  public static String percent(double share) {
    return Double.isNaN(share) ? "not measured" : String.format(Locale.ROOT, "%.0f%%", 100 * share);
  }

  /** A relative change, {@code +36%} or {@code -10%}. */
  public static String change(double ratio) {
    return String.format(Locale.ROOT, "%+.0f%%", 100 * (ratio - 1));
  }
}
