package dev.sluice.loadtest.jepsen;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.Collectors;

/**
 * The nemesis's plan, a function of the seed alone (and of the run's length and the kinds
 * allowed): faults one after another, each held for a while, then a quiet time. The run follows it
 * in order; a fault starts once the one before has healed, both nodes are back on Redis, and its
 * quiet time has passed, so the times at which faults really start are recorded beside the plan,
 * never read from it.
 *
 * @param seed what it was drawn from
 * @param faults in order
 */
record Schedule(long seed, List<Planned> faults) {

  /** Load before the first fault: the nodes warm, Redis holds every account's bucket. */
  static final Duration WARM_UP = Duration.ofSeconds(10);

  /** Load after the last fault's quiet time: a whole rule period and more on an unfaulted system. */
  static final Duration TAIL = Duration.ofSeconds(10);

  /**
   * One fault of the plan.
   *
   * @param kind what
   * @param lasts how long it is held before it heals (FLUSHALL: none, it is a moment)
   * @param quietAfter the time without a fault after it has settled
   * @param node the node it acts on (0 or 1) for a node's fault, else 0
   * @param clock for {@link FaultKind#CLOCK}, libfaketime's {@code FAKETIME} value, else empty
   */
  record Planned(FaultKind kind, Duration lasts, Duration quietAfter, int node, String clock) {

    /** E.g. {@code blackhole for 3.2 s} or {@code clock of node 2 ("+1h x1.02") for 20.0 s}. */
    String describe() {
      String what = kind.id()
          + (kind.onNode() ? " of node " + (node + 1) : "")
          + (clock.isEmpty() ? "" : " (FAKETIME \"" + clock + "\")");
      return kind == FaultKind.FLUSHALL
          ? what
          : String.format(java.util.Locale.ROOT, "%s for %.1f s", what, lasts.toMillis() / 1e3);
    }
  }

  Schedule {
    faults = List.copyOf(faults);
  }

  /**
   * Draws the plan for a run of {@code duration}: faults from {@code kinds} until their planned
   * times (plus the warm-up and the tail, and an allowance for the nodes' restarts of a clock
   * fault) fill it; at least one.
   */
  static Schedule of(long seed, Duration duration, List<FaultKind> kinds) {
    if (kinds.isEmpty()) {
      throw new IllegalArgumentException("no fault kind to draw from");
    }
    Random random = new Random(seed);
    List<Planned> faults = new ArrayList<>();
    long left = duration.minus(WARM_UP).minus(TAIL).toMillis();
    do {
      FaultKind kind = kinds.get(random.nextInt(kinds.size()));
      // 1-6 s: shorter and longer than the lease time's two thirds (2 s), on both sides of the
      // breaker's opening; a clock fault runs a node on the false clock for 15-30 s
      Duration lasts = Duration.ofMillis(
          kind == FaultKind.CLOCK
              ? 15_000 + random.nextInt(15_000)
              : 1_000 + random.nextInt(5_000));
      Duration quiet = Duration.ofMillis(4_000 + random.nextInt(6_000));
      int node = kind.onNode() ? random.nextInt(2) : 0;
      String clock = kind == FaultKind.CLOCK ? clock(random) : "";
      Planned planned = new Planned(kind, lasts, quiet, node, clock);
      faults.add(planned);
      // a clock fault restarts a node twice: about 10 s of starting JVMs
      left -= lasts.toMillis() + quiet.toMillis() + (kind == FaultKind.CLOCK ? 10_000 : 2_000);
    } while (left > 0);
    return new Schedule(seed, faults);
  }

  /** A step of an hour or a few minutes, either way, and the clock 2% fast or slow. */
  private static String clock(Random random) {
    String[] steps = {"+1h", "-1h", "+5m", "-5m"};
    String[] rates = {"x1.02", "x0.98"};
    return steps[random.nextInt(steps.length)] + " " + rates[random.nextInt(rates.length)];
  }

  /** The plan, one fault after another, on one line. */
  String describe() {
    return faults.stream().map(Planned::describe).collect(Collectors.joining("; "));
  }
}
