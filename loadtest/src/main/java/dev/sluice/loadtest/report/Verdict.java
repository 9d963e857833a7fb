package dev.sluice.loadtest.report;

import com.fasterxml.jackson.annotation.JsonValue;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One judgement of a report, the one type every experiment uses: what was judged, the aim, the
 * figure measured, whether the aim was met, and why where the figure alone does not say. A headline
 * that states several figures in a sentence is a verdict with only a name (the sentence, each
 * figure's aim beside it, see {@link #withAim}). Reports open with their verdicts, green where met,
 * red where missed, grey where not measured or not run.
 *
 * @param name what is judged, e.g. a variant; for a headline, the whole sentence
 * @param target the aim, e.g. {@code ≤ 75%}; null for a headline or a reference figure
 * @param measured the figure, e.g. {@code 71.2 %}; null for a headline
 * @param outcome met, missed, not measured, or a reference without an aim
 * @param why what the figure alone does not say, or null
 */
public record Verdict(String name, String target, String measured, Outcome outcome, String why) {

  /** How a verdict is judged and coloured. */
  public enum Outcome {
    /** Every aim the verdict states was met. */
    MET("met", "met"),
    /** At least one was missed. */
    MISSED("miss", "missed"),
    /**
     * Not judged: the figure it needs is missing (the variant did not run, the run was too short to
     * measure it, or what it compares with did not run).
     */
    NOT_MEASURED("none", "not measured"),
    /** A figure stated for comparison, with no aim of its own. */
    INFO("info", "reference");

    private final String css;
    private final String label;

    Outcome(String css, String label) {
      this.css = css;
      this.label = label;
    }

    /** The CSS class of the verdict: {@code met}, {@code miss}, {@code none} or {@code info}. */
    public String css() {
      return css;
    }

    /** As a reader says it, e.g. {@code not measured}. */
    public String label() {
      return label;
    }

    /** {@link #MET} or {@link #MISSED}. */
    public static Outcome of(boolean met) {
      return met ? MET : MISSED;
    }
  }

  /** A figure judged against its aim. */
  public static Verdict judged(String name, String target, String measured, Outcome outcome) {
    return new Verdict(name, target, measured, outcome, null);
  }

  public static Verdict met(String text) {
    return new Verdict(text, null, null, Outcome.MET, null);
  }

  public static Verdict missed(String text) {
    return new Verdict(text, null, null, Outcome.MISSED, null);
  }

  public static Verdict of(boolean met, String text) {
    return new Verdict(text, null, null, Outcome.of(met), null);
  }

  public static Verdict notMeasured(String text) {
    return new Verdict(text, null, null, Outcome.NOT_MEASURED, null);
  }

  public static Verdict info(String text) {
    return new Verdict(text, null, null, Outcome.INFO, null);
  }

  /**
   * A headline over several judgements: missed where one was missed, met where every judged one
   * was, not measured where none was judged.
   */
  public static Verdict overall(String text, List<Outcome> parts) {
    return new Verdict(
        text,
        null,
        null,
        parts.contains(Outcome.MISSED)
            ? Outcome.MISSED
            : parts.contains(Outcome.MET) ? Outcome.MET : Outcome.NOT_MEASURED,
        null);
  }

  /**
   * One aim judged on several variants, as one sentence: {@code head: met by a (figure); missed by
   * b (figure); not run: c}, each list left out where empty; where no variant was judged, {@code
   * unmeasured} (e.g. {@code not measured (...)}) comes first.
   */
  public static String byVariant(
      String head, List<String> met, List<String> missed, List<String> notRun, String unmeasured) {
    List<String> parts = new ArrayList<>();
    if (met.isEmpty() && missed.isEmpty()) {
      parts.add(unmeasured);
    }
    if (!met.isEmpty()) {
      parts.add("met by " + String.join(", ", met));
    }
    if (!missed.isEmpty()) {
      parts.add("missed by " + String.join(", ", missed));
    }
    if (!notRun.isEmpty()) {
      parts.add("not run: " + String.join(", ", notRun));
    }
    return head + String.join("; ", parts);
  }

  /** The same judgement with a reason added. */
  public Verdict because(String reason) {
    return new Verdict(name, target, measured, outcome, reason);
  }

  /**
   * The line a reader sees: a headline's sentence, or {@code name: measured (aim target)} and the
   * reason after a semicolon.
   */
  public String text() {
    if (target == null && measured == null) {
      return why == null ? name : name + "; " + why;
    }
    StringBuilder text = new StringBuilder(name);
    if (measured != null) {
      text.append(": ").append(target == null ? measured : withAim(measured, target));
    } else {
      text.append(": aim ").append(target);
    }
    return why == null ? text.toString() : text.append("; ").append(why).toString();
  }

  /**
   * In {@code summary.json}: {@code text} and {@code outcome} always; {@code target}, the measured
   * figure as {@code detail} and {@code why} where there are (the field names scripts already
   * read).
   */
  @JsonValue
  Map<String, Object> json() {
    Map<String, Object> json = new LinkedHashMap<>();
    json.put("text", text());
    json.put("outcome", outcome.name());
    if (target != null) {
      json.put("target", target);
    }
    if (measured != null) {
      json.put("detail", measured);
    }
    if (why != null) {
      json.put("why", why);
    }
    return json;
  }

  /** {@code 94% (aim ≥ 95%)}: a figure and, beside it, the aim it is judged by. */
  public static String withAim(String figure, String aim) {
    return figure + " (aim " + aim + ")";
  }
}
