package dev.sluice.loadtest.report;

import dev.sluice.loadtest.report.Verdict.Outcome;
import java.util.ArrayList;
import java.util.List;

/**
 * A headline sentence built from its checks: {@code subject: part; part; ...}, each judged part a
 * figure beside its aim. The headline is missed where a check was missed, met where every judged
 * one was, not measured where none was judged; the checks themselves stay readable for tables.
 */
public final class Headline {

  private final String subject;
  private final List<String> parts = new ArrayList<>();
  private final List<Verdict> checks = new ArrayList<>();

  private Headline(String subject) {
    this.subject = subject;
  }

  public static Headline of(String subject) {
    return new Headline(subject);
  }

  /** A figure judged against its aim, then {@code after} (e.g. what it is set against). */
  public Headline check(String figure, String aim, boolean met, String after) {
    return check(figure, aim, Outcome.of(met), after);
  }

  public Headline check(String figure, String aim, Outcome outcome, String after) {
    checks.add(Verdict.judged(subject, aim, figure, outcome));
    return fact(Verdict.withAim(figure, aim) + after);
  }

  /** A part judged without an aim beside it: its text says how it stands. */
  public Headline judged(String text, boolean met) {
    checks.add(Verdict.judged(subject, null, text, Outcome.of(met)));
    return fact(text);
  }

  /** A part that states a figure without judging it. */
  public Headline fact(String text) {
    parts.add(text);
    return this;
  }

  /** Every check, named for the subject. */
  public List<Verdict> checks() {
    return List.copyOf(checks);
  }

  public Verdict verdict() {
    return Verdict.overall(
        subject + ": " + String.join("; ", parts),
        checks.stream().map(Verdict::outcome).toList());
  }
}
