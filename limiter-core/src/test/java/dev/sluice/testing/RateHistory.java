package dev.sluice.testing;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * A whole history of rate decisions checked against a rule's exact bound, the way a Jepsen checker
 * reads a history against a model rather than one figure per test.
 *
 * <p>A bucket rule (token bucket, GCRA, leaky bucket as a meter) of {@code permits} per {@code
 * period} with a burst of {@code burst} admits, for one actor, at most {@code burst + rate x t}
 * permits in any interval of length {@code t}; and a refusal is owed only when admitting it would
 * have broken that bound. {@link #checkBucket} checks every interval between two decisions of an
 * actor, not only the windows a test thought of, in O(decisions x allowances).
 *
 * <p>Time is what the caller recorded: each decision carries the span in which it was decided
 * (from when it was asked to when it was answered, on one clock), so a slow answer never makes
 * an honest history look wrong: an interval is measured from the earliest its first decision can
 * have been made to the latest its last one can have been, and a refusal is owed only if the rule
 * allowed it even at the latest its earlier admissions can have been made.
 *
 * <p>An {@link Allowance} is the documented extra of a fault: any interval that overlaps it may
 * hold that many permits more. Refusals during an allowance are not counted as owed (a node on
 * its local share refuses more than the rule would).
 */
public final class RateHistory {

  private RateHistory() {}

  /**
   * One decision for one actor.
   *
   * @param actor whose decision (the rule's key)
   * @param askedNanos when it was asked, on the history's clock
   * @param answeredNanos when the answer came, on the same clock
   * @param admitted whether it was admitted
   * @param cost permits it asked for
   */
  public record Decision(
      String actor, long askedNanos, long answeredNanos, boolean admitted, long cost) {
    public Decision {
      Objects.requireNonNull(actor, "actor");
      if (answeredNanos < askedNanos) {
        throw new IllegalArgumentException(
            "answered before asked: " + askedNanos + " > " + answeredNanos);
      }
      if (cost < 1) {
        throw new IllegalArgumentException("cost must be at least 1 but was " + cost);
      }
    }
  }

  /**
   * A fault's documented allowance: an interval overlapping {@code [fromNanos, toNanos)} may admit
   * {@code permits} more than the rule.
   */
  public record Allowance(String fault, long fromNanos, long toNanos, long permits) {
    public Allowance {
      Objects.requireNonNull(fault, "fault");
      if (toNanos < fromNanos || permits < 0) {
        throw new IllegalArgumentException(
            "allowance " + fault + ": [" + fromNanos + ", " + toNanos + ") of " + permits);
      }
    }
  }

  /**
   * The worst interval of one actor that held more than the rule and its allowances.
   *
   * @param actor whose
   * @param fromNanos the earliest the interval's first admission can have been made
   * @param toNanos the latest its last one can have been made
   * @param admitted permits admitted in it
   * @param bound what the rule and the allowances it overlaps allow in it
   * @param faults the allowances it overlaps
   */
  public record OverAdmission(
      String actor,
      long fromNanos,
      long toNanos,
      long admitted,
      double bound,
      List<String> faults) {

    /** Permits beyond the bound. */
    public double excess() {
      return admitted - bound;
    }
  }

  /**
   * A refusal the rule did not call for: admitting it would have kept every interval ending at it
   * within the bound, outside every allowance.
   *
   * @param headroom permits the tightest interval ending at it still had, beyond its cost
   */
  public record UnderAdmission(String actor, long askedNanos, double headroom) {}

  /** What the check found over the whole history. */
  public record Report(
      int decisions,
      long admitted,
      List<OverAdmission> overAdmissions,
      List<UnderAdmission> underAdmissions) {

    /** No actor got more than the rule and its allowances. */
    public boolean withinBound() {
      return overAdmissions.isEmpty();
    }

    /** One line for a test's output or a report. */
    public String summary() {
      String over = overAdmissions.stream()
          .map(o -> String.format(
              "%s: %d admitted in %.2f s where %.1f were allowed%s",
              o.actor(),
              o.admitted(),
              (o.toNanos() - o.fromNanos()) / 1e9,
              o.bound(),
              o.faults().isEmpty() ? "" : " (overlapping " + String.join(", ", o.faults()) + ")"))
          .collect(Collectors.joining("; "));
      return decisions + " decisions, " + admitted + " permits admitted; "
          + (overAdmissions.isEmpty() ? "no over-admission" : "over-admission: " + over) + "; "
          + underAdmissions.size() + " refusals within the rate"
          + underAdmissions.stream()
              .limit(3)
              .map(u -> String.format(
                  "%s at %.3f s (%.1f permits of room)",
                  u.actor(), u.askedNanos() / 1e9, u.headroom()))
              .collect(Collectors.joining(", ", underAdmissions.isEmpty() ? "" : " (", ""))
          + (underAdmissions.size() > 3 ? ", ...)" : underAdmissions.isEmpty() ? "" : ")");
    }
  }

  /**
   * Checks a bucket rule: for every actor and every interval, admitted permits at most {@code
   * burst + permits / period x length} plus the allowances the interval overlaps.
   *
   * @param tolerance permits of headroom a refusal must have to count as owed (a rule counted in
   *     whole permits or refilled in steps refuses within a permit of the exact bound); 0 for an
   *     exact bucket
   */
  public static Report checkBucket(
      Collection<Decision> history,
      long permits,
      Duration period,
      long burst,
      Collection<Allowance> allowances,
      double tolerance) {
    if (permits < 1 || burst < 1 || period.isNegative() || period.isZero()) {
      throw new IllegalArgumentException(
          "a bucket of " + permits + " per " + period + ", burst " + burst);
    }
    double rate = (double) permits / period.toNanos();
    Map<String, List<Decision>> byActor = history.stream()
        .collect(Collectors.groupingBy(Decision::actor, TreeMap::new, Collectors.toList()));
    List<OverAdmission> over = new ArrayList<>();
    List<UnderAdmission> under = new ArrayList<>();
    long admitted = 0;
    Allowance[] faults = allowances.toArray(new Allowance[0]);
    for (Map.Entry<String, List<Decision>> entry : byActor.entrySet()) {
      List<Decision> decisions = new ArrayList<>(entry.getValue());
      decisions.sort(Comparator.comparingLong(Decision::askedNanos)
          .thenComparingLong(Decision::answeredNanos));
      admitted += decisions.stream()
          .filter(Decision::admitted)
          .mapToLong(Decision::cost)
          .sum();
      checkActor(entry.getKey(), decisions, rate, burst, faults, over);
      owedRefusals(entry.getKey(), decisions, rate, burst, faults, tolerance, under);
    }
    over.sort(Comparator.comparingDouble(OverAdmission::excess).reversed());
    return new Report(history.size(), admitted, List.copyOf(over), List.copyOf(under));
  }

  /**
   * The worst interval of one actor. For the admissions in asked order, an interval from the i-th
   * to the j-th admission holds {@code C[j] - C[i-1]} permits over at most {@code E[j] - asked[i]}
   * (E the latest answer so far): it breaks the bound when {@code (C[j] - rate E[j]) - (C[i-1] -
   * rate asked[i])} exceeds the burst and the allowances it overlaps. The allowances an interval
   * overlaps depend on where its start falls between the allowances' ends, so the minimum of
   * {@code C[i-1] - rate asked[i]} is kept per such segment.
   */
  private static void checkActor(
      String actor,
      List<Decision> decisions,
      double rate,
      long burst,
      Allowance[] faults,
      List<OverAdmission> out) {
    long[] ends =
        Arrays.stream(faults).mapToLong(Allowance::toNanos).sorted().distinct().toArray();
    int segments = ends.length + 1;
    double[] segMin = new double[segments];
    long[] segMinAt = new long[segments];
    long[] segMinCount = new long[segments];
    Arrays.fill(segMin, Double.POSITIVE_INFINITY);
    long count = 0;
    long latestAnswer = Long.MIN_VALUE;
    OverAdmission worst = null;
    for (Decision d : decisions) {
      if (!d.admitted()) {
        continue;
      }
      int seg = segment(ends, d.askedNanos());
      double startKey = count - rate * d.askedNanos();
      if (startKey < segMin[seg]) {
        segMin[seg] = startKey;
        segMinAt[seg] = d.askedNanos();
        segMinCount[seg] = count;
      }
      count += d.cost();
      latestAnswer = Math.max(latestAnswer, d.answeredNanos());
      double endKey = count - rate * latestAnswer;
      for (int s = 0; s <= seg; s++) {
        if (segMin[s] == Double.POSITIVE_INFINITY) {
          continue;
        }
        long from = segMinAt[s];
        List<String> overlapped = new ArrayList<>();
        long extra = 0;
        for (Allowance f : faults) {
          if (from < f.toNanos() && latestAnswer >= f.fromNanos()) {
            overlapped.add(f.fault());
            extra += f.permits();
          }
        }
        double excess = endKey - segMin[s] - burst - extra;
        if (excess > 1e-9 && (worst == null || excess > worst.excess())) {
          double bound = burst + extra + rate * (latestAnswer - from);
          worst = new OverAdmission(
              actor, from, latestAnswer, count - segMinCount[s], bound, List.copyOf(overlapped));
        }
      }
    }
    if (worst != null) {
      out.add(worst);
    }
  }

  /**
   * Refusals the rule did not call for, outside the allowances: for the refusal, every interval
   * from an admission that may have been made before it (asked before it was answered; counted at
   * the latest it can have been made) to the earliest the refusal can have been made has room for
   * its cost. Quadratic per actor, which is fine for the histories of a test; the over-admission
   * check above is the linear one.
   */
  private static void owedRefusals(
      String actor,
      List<Decision> decisions,
      double rate,
      long burst,
      Allowance[] faults,
      double tolerance,
      List<UnderAdmission> out) {
    for (Decision d : decisions) {
      if (d.admitted() || inAnyAllowance(faults, d.askedNanos(), d.answeredNanos())) {
        continue;
      }
      List<Decision> before = new ArrayList<>();
      for (Decision a : decisions) {
        if (a.askedNanos() > d.answeredNanos()) {
          break;
        }
        if (a.admitted()) {
          before.add(a);
        }
      }
      before.sort(Comparator.comparingLong(Decision::answeredNanos));
      double headroom = burst - d.cost();
      long held = 0;
      for (int i = before.size() - 1; i >= 0; i--) {
        Decision a = before.get(i);
        held += a.cost();
        long length = Math.max(0, d.askedNanos() - a.answeredNanos());
        headroom = Math.min(headroom, burst + rate * length - held - d.cost());
      }
      if (headroom >= tolerance) {
        out.add(new UnderAdmission(actor, d.askedNanos(), headroom));
      }
    }
  }

  private static boolean inAnyAllowance(Allowance[] faults, long from, long to) {
    for (Allowance f : faults) {
      if (from < f.toNanos() && to >= f.fromNanos()) {
        return true;
      }
    }
    return false;
  }

  /** The index of the first allowance end above {@code t}: which segment {@code t} falls in. */
  private static int segment(long[] ends, long t) {
    int i = Arrays.binarySearch(ends, t);
    return i >= 0 ? i + 1 : -i - 1;
  }
}
