package dev.sluice.loadtest.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.HtmlReport;
import dev.sluice.loadtest.report.RunSummary;
import dev.sluice.loadtest.report.Verdict;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("verdicts", verdicts);
    summary.put("runs", runs);
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    json.writeValue(options.out().resolve("summary.json").toFile(), summary);
    Path report = options.out().resolve("report.html");
    Files.writeString(report, HtmlReport.render(runs, verdicts, ""), StandardCharsets.UTF_8);
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
    verdicts.forEach(v -> System.out.println("verdict: " + v.text()));
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
