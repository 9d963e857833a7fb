package dev.sluice.loadtest;

import dev.sluice.loadtest.adaptive.AdaptiveRun;
import dev.sluice.loadtest.hostile.HostileKeysRun;
import dev.sluice.loadtest.ingest.IngestRun;
import dev.sluice.loadtest.monday.MondayReplay;
import dev.sluice.loadtest.overhead.OverheadRun;
import dev.sluice.loadtest.overload.OverloadRun;
import dev.sluice.loadtest.scenario.Scenario;
import dev.sluice.loadtest.tenants.TenantScenario;
import java.util.List;
import java.util.stream.Collectors;

/** Every experiment {@code --scenario} can name; the only place that lists them. */
final class Experiments {

  /** In the order the usage lists them. */
  static final List<Experiment> ALL = List.of(
      Scenario.MONDAY_MAINTENANCE,
      Scenario.STEADY,
      Scenario.SPIKE,
      TenantScenario.GREEDY_HOST,
      TenantScenario.PRIORITY,
      new AdaptiveRun(),
      new OverloadRun(),
      new IngestRun(),
      new MondayReplay(),
      new OverheadRun(),
      new dev.sluice.loadtest.soak.SoakRun(),
      new dev.sluice.loadtest.transitions.TransitionsRun(),
      new HostileKeysRun(),
      new dev.sluice.loadtest.jepsen.JepsenRun(),
      new dev.sluice.loadtest.envoy.EnvoyRateLimitRun());

  /** What runs without {@code --scenario}. */
  static final Experiment DEFAULT = Scenario.MONDAY_MAINTENANCE;

  private Experiments() {}

  /** @throws IllegalArgumentException naming the value and every known name */
  static Experiment named(String id) {
    return ALL.stream()
        .filter(e -> e.id().equals(id))
        .findFirst()
        .orElseThrow(() -> new IllegalArgumentException(
            "--scenario must be one of " + ids() + " but was '" + id + "'"));
  }

  /** The known names, comma-separated. */
  static String ids() {
    return ALL.stream().map(Experiment::id).collect(Collectors.joining(", "));
  }

  /** The experiments that read {@code option}; empty for an option that is not one's own. */
  static List<String> reading(String option) {
    return ALL.stream()
        .filter(e -> e.ownOptions().contains(option))
        .map(Experiment::id)
        .toList();
  }
}
