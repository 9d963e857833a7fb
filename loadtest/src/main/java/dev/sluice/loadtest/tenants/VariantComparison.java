package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Block;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.RunReport;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.scenario.LoadRun;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Runs {@code greedy-host} or {@code priority}: with {@code --embedded}, each {@link Variant} on a
 * fresh demo service (one after the other, so they never share the machine), the same plan and seed
 * each time; with {@code --target}, the one service given. Counts per caller through a
 * {@link CallerTally}, and writes the scenario's figures beside the common ones.
 */
final class VariantComparison {

  private static final Pattern UNKNOWN_PROPERTY =
      Pattern.compile("Unknown Sluice property '([^']+)'");

  private VariantComparison() {}

  static Path run(Options options, TenantScenario scenario, List<Variant> variants)
      throws Exception {
    List<RunSummary> runs = new ArrayList<>();
    List<Object> figures = new ArrayList<>();
    if (!options.embedded()) {
      CallerTally tally = new CallerTally(GreedyHostTraffic.HOST_HEADER);
      RunSummary run = new LoadRun(options, scenario.workload(options), tally::wrap)
          .run(options.target().orElseThrow(), options.target().get().toString());
      runs.add(run);
      figures.add(figures(scenario, "target", List.of(), run, tally));
    }
    for (Variant variant : options.embedded() ? variants : List.<Variant>of()) {
      List<String> properties = new ArrayList<>(options.serverProperties());
      properties.addAll(variant.serverProperties());
      Path log = options.out().resolve("server-" + variant.name() + ".log");
      CallerTally tally = new CallerTally(GreedyHostTraffic.HOST_HEADER);
      try (DemoProcess demo = DemoProcess.start(properties, log)) {
        RunSummary run = new LoadRun(options, scenario.workload(options), tally::wrap)
            .run(demo.uri(), variant.label());
        List<String> ignored = ignoredProperties(Files.readString(log), variant.serverProperties());
        if (!ignored.isEmpty()) {
          System.out.println("WARNING " + variant.name() + ": the service ignored " + ignored
              + " (not implemented in this build?): this variant did not run as described");
        }
        runs.add(run);
        // taken as soon as the books close, so the tally counts what the run counted (answers that
        // came after the drain are few); not after the service is stopped
        figures.add(figures(scenario, variant.name(), ignored, run, tally));
      }
    }
    List<Verdict> verdicts = TenantVerdict.of(figures);
    List<Block> section = TenantReport.section(figures);
    Path report = Reporter.write(
        RunReport.of(runs, verdicts, section)
            .summary(scenario == TenantScenario.GREEDY_HOST ? "greedyHost" : "priority", figures)
            .build(),
        options.out());
    section.forEach(Block::echo);
    return report;
  }

  private static Object figures(
      TenantScenario scenario,
      String name,
      List<String> ignored,
      RunSummary run,
      CallerTally tally) {
    return scenario == TenantScenario.GREEDY_HOST
        ? GreedyHostFigures.of(name, ignored, run, tally)
        : PriorityFigures.of(name, ignored, run, tally);
  }

  /** The variant's property keys the service's log calls unknown (the plugin warns and goes on). */
  static List<String> ignoredProperties(String log, List<String> properties) {
    List<String> keys = properties.stream()
        .map(p -> p.substring(0, p.indexOf('=')).trim().toLowerCase(Locale.ROOT))
        .toList();
    List<String> ignored = new ArrayList<>();
    Matcher m = UNKNOWN_PROPERTY.matcher(log);
    while (m.find()) {
      String key = m.group(1).toLowerCase(Locale.ROOT);
      if (keys.contains(key) && !ignored.contains(key)) {
        ignored.add(key);
      }
    }
    return ignored;
  }
}
