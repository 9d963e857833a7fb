package dev.sluice.loadtest.tenants;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.percent;

import dev.sluice.loadtest.report.Headline;
import dev.sluice.loadtest.report.Verdict;
import java.util.List;
import java.util.Optional;

/**
 * The headlines of {@code greedy-host} and {@code priority}: one per variant, its figures beside
 * the scenario's aims, set against {@code fifo} (today's queue) when it ran too. A variant the
 * service did not run as described never meets its aim.
 */
final class TenantVerdict {

  private TenantVerdict() {}

  /** One headline per variant's figures (all of one record type). */
  static List<Verdict> of(List<Object> figures) {
    return figures.stream()
        .map(f -> f instanceof GreedyHostFigures g
            ? greedyHost(g, fifo(figures, GreedyHostFigures.class, GreedyHostFigures::variant))
            : priority(
                (PriorityFigures) f,
                fifo(figures, PriorityFigures.class, PriorityFigures::variant)))
        .toList();
  }

  static Verdict greedyHost(GreedyHostFigures g, Optional<GreedyHostFigures> fifo) {
    if (Double.isNaN(g.jainIndex()) || Double.isNaN(g.politeMinShareOfFair())) {
      return Verdict.notMeasured(
          g.variant() + ": fairness not measured (no maintenance host was served)");
    }
    String against = fifo.filter(
            f -> !f.variant().equals(g.variant()) && !Double.isNaN(f.jainIndex()))
        .map(
            f -> f(" against fifo's %.2f and %s", f.jainIndex(), percent(f.politeMinShareOfFair())))
        .orElse("");
    return asDescribed(
        Headline.of(g.variant())
            .check(
                f("Jain's index %.2f", g.jainIndex()),
                "≥ 0.95",
                g.jainIndex() >= GreedyHostFigures.TARGET_JAIN,
                "")
            .check(
                "lowest polite host " + percent(g.politeMinShareOfFair()) + " of its fair share",
                "≥ 90%",
                g.politeBelow90() == 0,
                against)
            .fact(g.politeBelow90() + " polite hosts under 90%")
            .fact("greedy host " + greedyShare(g) + " of its fair share")
            .fact("rescue " + g.rescue().served() + " of " + g.rescue().requests() + " served"),
        g.ignoredProperties());
  }

  static Verdict priority(PriorityFigures p, Optional<PriorityFigures> fifo) {
    PriorityFigures.Kind c = p.critical();
    if (c.requests() == 0) {
      return Verdict.notMeasured(p.variant() + ": no critical job was sent, nothing to judge");
    }
    String against = fifo.filter(f -> !f.variant().equals(p.variant()))
        .map(f -> f(
            " against fifo's %d of %d and %d",
            f.critical().served(), f.critical().requests(), notServed(f.critical())))
        .orElse("");
    return asDescribed(
        Headline.of(p.variant())
            .check(
                "critical " + c.served() + " of " + c.requests() + " served",
                "all",
                c.served() == c.requests(),
                "")
            .check(
                notServed(c) + " critical tries answered other than 200",
                "0",
                notServed(c) == 0,
                against)
            .check(
                p.sheddable().shed() + " of " + p.sheddable().requests() + " sheddable jobs shed",
                "some",
                p.sheddable().shed() > 0,
                "")
            .fact("critical queue wait "
                + (Double.isNaN(p.criticalWaitPerServiceTime())
                    ? "not measured"
                    : f("p99 %.1fx one service time", p.criticalWaitPerServiceTime()))),
        p.ignoredProperties());
  }

  private static long notServed(PriorityFigures.Kind k) {
    return k.tries429() + k.tries504() + k.otherNotServedTries();
  }

  /** A variant the service did not run as described misses its aim, whatever its figures. */
  private static Verdict asDescribed(Headline h, List<String> ignored) {
    if (!ignored.isEmpty()) {
      h.check("the service ignored " + String.join(", ", ignored), "none", false, "");
    }
    return h.verdict();
  }

  private static String greedyShare(GreedyHostFigures g) {
    GreedyHostFigures.Host greedy = g.hosts().get(GreedyHostTraffic.GREEDY_HOST);
    return greedy == null ? "not measured" : percent(greedy.shareOfFair());
  }

  private static <T> Optional<T> fifo(
      List<Object> figures, Class<T> type, java.util.function.Function<T, String> variant) {
    return figures.stream()
        .filter(type::isInstance)
        .map(type::cast)
        .filter(f -> variant.apply(f).equals("fifo"))
        .findFirst();
  }
}
