package dev.sluice.loadtest.tenants;

import static dev.sluice.loadtest.report.Numbers.f;
import static dev.sluice.loadtest.report.Numbers.percent;

import dev.sluice.loadtest.report.Verdict;
import java.util.List;
import java.util.Locale;
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
    String text = f(
        "%s: Jain's index %s, lowest polite host %s%s; %d polite hosts under"
            + " 90%%; greedy host %s of its fair share; rescue %d of %d served%s",
        g.variant(),
        Verdict.withAim(f("%.2f", g.jainIndex()), "≥ 0.95"),
        Verdict.withAim(percent(g.politeMinShareOfFair()) + " of its fair share", "≥ 90%"),
        against,
        g.politeBelow90(),
        greedyShare(g),
        g.rescue().served(),
        g.rescue().requests(),
        ignored(g.ignoredProperties()));
    return Verdict.of(g.targetMet(), text);
  }

  static Verdict priority(PriorityFigures p, Optional<PriorityFigures> fifo) {
    PriorityFigures.Kind c = p.critical();
    if (c.requests() == 0) {
      return Verdict.notMeasured(p.variant() + ": no critical job was sent, nothing to judge");
    }
    String against = fifo.filter(f -> !f.variant().equals(p.variant()))
        .map(f -> f(
            " against fifo's %d of %d and %d",
            f.critical().served(),
            f.critical().requests(),
            f.critical().tries429() + f.critical().tries504() + f.critical().otherNotServedTries()))
        .orElse("");
    String text = f(
        "%s: critical %s, %s%s, while %s; critical queue wait %s%s",
        p.variant(),
        Verdict.withAim(c.served() + " of " + c.requests() + " served", "all"),
        Verdict.withAim(
            (c.tries429() + c.tries504() + c.otherNotServedTries())
                + " critical tries answered other than 200",
            "0"),
        against,
        Verdict.withAim(
            p.sheddable().shed() + " of " + p.sheddable().requests() + " sheddable jobs shed",
            "some"),
        Double.isNaN(p.criticalWaitPerServiceTime())
            ? "not measured"
            : String.format(
                Locale.ROOT, "p99 %.1fx one service time", p.criticalWaitPerServiceTime()),
        ignored(p.ignoredProperties()));
    return Verdict.of(p.targetMet(), text);
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

  private static String ignored(List<String> ignored) {
    return ignored.isEmpty()
        ? ""
        : " (NOT AS DESCRIBED: the service ignored " + String.join(", ", ignored)
            + ", so the aim is not met)";
  }
}
