package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.RunReport;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.RunSummary;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * One open-loop scenario: against {@code --target}, or against an embedded demo service, with
 * {@code --ab} first with Sluice off and then on; writes {@code summary.json} and
 * {@code report.html}.
 */
final class ScenarioRun {

  private ScenarioRun() {}

  static Path run(Scenario scenario, Options options) throws Exception {
    List<RunSummary> runs = new ArrayList<>();
    LoadRun load = new LoadRun(options, scenario.workload(options));
    if (options.embedded()) {
      if (options.ab()) {
        runs.add(embedded(load, options, false, "without Sluice (sluice.enabled=false)"));
      }
      runs.add(embedded(load, options, true, "with Sluice"));
    } else {
      runs.add(load.run(options.target().orElseThrow(), options.target().get().toString()));
    }
    List<Verdict> verdicts = ScenarioVerdict.of(runs, options.embedded() && options.ab());
    Path report = Reporter.write(RunReport.of(runs, verdicts, List.of()).build(), options.out());
    for (RunSummary run : runs) {
      System.out.printf(
          "%s: sent %d, outcomes %s, retries %d, service CPU mean %.1f%% max %.1f%%%n",
          run.label(),
          run.accounting().totalSent(),
          run.accounting().outcomes(),
          run.accounting().retries(),
          run.cpu().processMean(),
          run.cpu().processMax());
    }
    return report;
  }

  private static RunSummary embedded(LoadRun load, Options options, boolean sluice, String label)
      throws Exception {
    List<String> properties = new ArrayList<>(options.serverProperties());
    properties.add("sluice.enabled=" + sluice);
    Path log = options.out().resolve(sluice ? "server-sluice-on.log" : "server-sluice-off.log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      return load.run(demo.uri(), label);
    }
  }
}
