package dev.sluice.loadtest;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.sluice.loadtest.adaptive.AdaptiveRun;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.ingest.IngestRun;
import dev.sluice.loadtest.overhead.OverheadRun;
import dev.sluice.loadtest.report.HtmlReport;
import dev.sluice.loadtest.report.RunSummary;
import dev.sluice.loadtest.scenario.LoadRun;
import dev.sluice.loadtest.scenario.Scenario;
import dev.sluice.loadtest.tenants.Variant;
import dev.sluice.loadtest.tenants.VariantComparison;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The command line: runs a scenario against a service (or a demo service it starts) and writes
 * {@code report.html} and {@code summary.json}.
 *
 * <pre>java -jar loadtest/target/loadtest.jar --embedded --scenario monday-maintenance --ab</pre>
 */
public final class LoadTest {

  private LoadTest() {}

  public static void main(String[] args) throws Exception {
    System.setProperty("java.awt.headless", "true");
    if (Options.wantsHelp(args)) {
      System.out.println(Options.USAGE);
      return;
    }
    Options options;
    try {
      options = Options.parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Path report = run(options);
    System.out.println("report: " + report.toAbsolutePath().toUri());
  }

  /** Runs what the options say and returns the report's path. */
  public static Path run(Options options) throws Exception {
    Files.createDirectories(options.out());
    if (options.overhead()) {
      return OverheadRun.run(options);
    }
    if (VariantComparison.handles(options.scenario())) {
      return VariantComparison.run(options, Variant.select(options.scenario(), options.variants()));
    }
    if (options.scenario() == Scenario.ADAPTIVE) {
      return AdaptiveRun.run(options);
    }
    if (options.scenario() == Scenario.INGEST) {
      return IngestRun.report(options);
    }
    List<RunSummary> runs = new ArrayList<>();
    LoadRun load = new LoadRun(options);
    if (options.embedded()) {
      if (options.ab()) {
        runs.add(embedded(load, options, false, "without Sluice (sluice.enabled=false)"));
      }
      runs.add(embedded(load, options, true, "with Sluice"));
    } else {
      runs.add(load.run(options.target().orElseThrow(), options.target().get().toString()));
    }
    ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
    json.writeValue(options.out().resolve("summary.json").toFile(), Map.of("runs", runs));
    Path report = options.out().resolve("report.html");
    Files.writeString(report, HtmlReport.render(runs), StandardCharsets.UTF_8);
    for (RunSummary run : runs) {
      System.out.printf(
          "%s: sent %d, outcomes %s, retries %d, service CPU mean %.1f%% max %.1f%%%n",
          run.label(), run.accounting().totalSent(), run.accounting().outcomes(),
          run.accounting().retries(), run.cpu().processMean(), run.cpu().processMax());
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
