package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.engine.Door;
import dev.sluice.loadtest.engine.GrpcTransport;
import dev.sluice.loadtest.engine.Workload;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.RunReport;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.RunSummary;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
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
    Workload workload = scenario.workload(options);
    String door = options.door() == Door.GRPC ? ", transcode over gRPC" : "";
    if (options.embedded()) {
      if (options.ab()) {
        runs.add(
            embedded(workload, options, false, "without Sluice (sluice.enabled=false)" + door));
      }
      runs.add(embedded(workload, options, true, "with Sluice" + door));
    } else {
      URI target = options.target().orElseThrow();
      runs.add(run(workload, options, target, options.grpcPort(), target + door));
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

  private static RunSummary embedded(
      Workload workload, Options options, boolean sluice, String label) throws Exception {
    List<String> properties = new ArrayList<>(options.serverProperties());
    properties.add("sluice.enabled=" + sluice);
    int grpcPort = 0;
    if (options.door() == Door.GRPC) {
      grpcPort = options.grpcPort() != 0 ? options.grpcPort() : DemoProcess.freePort();
      properties.add("demo.grpc.port=" + grpcPort);
    }
    Path log = options.out().resolve(sluice ? "server-sluice-on.log" : "server-sluice-off.log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      return run(workload, options, demo.uri(), grpcPort, label);
    }
  }

  /** One run; with {@code --door grpc} the transcode jobs go to {@code grpcPort} on the same host. */
  private static RunSummary run(
      Workload workload, Options options, URI target, int grpcPort, String label) throws Exception {
    if (options.door() == Door.HTTP) {
      return new LoadRun(options, workload).run(target, label);
    }
    // the HTTP transport's timeout: far past the service's queue timeout, so the service answers
    try (GrpcTransport grpc =
        new GrpcTransport(target.getHost(), grpcPort, Duration.ofMinutes(5))) {
      return new LoadRun(options, workload, grpc::routing).run(target, label);
    }
  }
}
