package dev.sluice.javalin;

import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * One limiter's costs against its ceiling, {@code max-concurrency}: the most units the limit can
 * ever have (an adaptive limit moves below it). A request costing more can never run beside
 * another: it takes the whole limit and runs alone. A cost declared in the caller's own unit
 * ({@code query:cpuMillis} without {@code cost-scale}) does that to every request, and the CPU limit
 * then means nothing; this says so at once, instead of leaving an operator to find it from 504s: a
 * warning naming the limiter, the cost and the ceiling (once, again after a reload that changes the
 * cost or the ceiling), and the counts in the status ({@code cost.aboveCeiling}, {@code
 * cost.largestUnits}) and on the live page.
 *
 * <p>Per request it costs a volatile read and a compare, plus an atomic max while the largest cost
 * seen grows; the counter and the warning only for a cost above the ceiling.
 */
final class CostCeiling {

  private final String limiter;
  private final Warnings warnings; // the plugin's: to stderr as well when no SLF4J backend is bound
  private volatile int ceiling;
  private final AtomicBoolean warned = new AtomicBoolean();
  private final LongAdder above = new LongAdder();
  private final AtomicLong largestUnits = new AtomicLong();
  private final AtomicLong largestDeclared = new AtomicLong();

  CostCeiling(String limiter, int ceiling, Warnings warnings) {
    this.limiter = limiter;
    this.ceiling = ceiling;
    this.warnings = warnings;
  }

  /**
   * The settings in force changed (at start-up, or by a reload): a new ceiling, a new cost. A
   * constant cost above the ceiling is reported now; the warning is armed again for the others.
   */
  void inForce(int newCeiling, RequestCost cost) {
    ceiling = newCeiling;
    boolean alwaysAbove = cost.constant() > newCeiling;
    warned.set(alwaysAbove);
    if (alwaysAbove) {
      warn(cost.constant(), cost.constant(), cost);
    }
  }

  int ceiling() {
    return ceiling;
  }

  /**
   * A request costs {@code units} of the limit ({@code declared} in the caller's unit, before
   * {@code cost-scale}).
   */
  void seen(long declared, int units, RequestCost cost) {
    if (units > largestUnits.get()) {
      largestUnits.accumulateAndGet(units, Math::max);
      largestDeclared.accumulateAndGet(declared, Math::max);
    }
    if (units > ceiling) {
      above.increment();
      if (!warned.get() && warned.compareAndSet(false, true)) {
        warn(declared, units, cost);
      }
    }
  }

  /** Requests that cost more than the ceiling, since start. */
  long aboveCeiling() {
    return above.sum();
  }

  /** The largest cost seen, in units of the limit; 0 before any request with a cost. */
  long largestUnits() {
    return largestUnits.get();
  }

  /** The largest cost seen, as declared (before {@code cost-scale}); 0 before any. */
  long largestDeclared() {
    return largestDeclared.get();
  }

  private void warn(long declared, int units, RequestCost cost) {
    int limit = ceiling;
    String prefix = LimiterConfig.property(limiter, LimiterKeys.COST_SCALE);
    String advice;
    if (cost.declares()) {
      // a scale that makes this cost half the ceiling leaves room for cheaper requests beside it
      long suggested = Math.max(1, ceilDiv(declared, Math.max(1, limit / 2)));
      advice = "set " + prefix + " to the caller's units per unit of the limit (" + suggested
          + " makes this cost " + Math.max(1, Math.round((double) declared / suggested))
          + " units), or raise max-concurrency";
    } else {
      advice = "raise max-concurrency or lower the cost";
    }
    warnings.warn(
        "cost above the ceiling " + limiter,
        "Sluice limiter '" + limiter + "': a request costs " + units + " units of the limit ("
            + cost.describe(declared) + "), more than max-concurrency " + limit
            + ", the ceiling of the limit in units: every such request runs alone, whatever the"
            + " limit says; " + advice + ". Later ones are counted in the status"
            + " (cost.aboveCeiling), not logged");
  }

  private static long ceilDiv(long a, long b) {
    return -Math.floorDiv(-a, b);
  }
}
