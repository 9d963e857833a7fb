package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.engine.Door;
import dev.sluice.loadtest.engine.HttpTransport;
import dev.sluice.loadtest.engine.Workload;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ThreadCount;
import dev.sluice.loadtest.scenario.LoadRun;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * {@code --scenario overload}: overload measured the way the papers do. Per kind of job it first
 * measures the capacity of a service without a limiter, then offers each variant (on a fresh demo)
 * a multiple of it per sweep point, and with {@code --step} the step test (1x, 10x, 1x); then one
 * report. Each request is tried once, so the offered load is exactly the multiple and every latency
 * is one try's. With {@code --door grpc} the jobs go through the demo's gRPC door, and each sweep
 * run also reads the service's thread count and sends a retrying client's calls beside the load
 * ({@link GrpcDoorRun}).
 */
public final class OverloadRun implements Experiment {

  @Override
  public String id() {
    return "overload";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--points", "--jobs", "--step", "--variants", "--door");
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofSeconds(20);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario overload starts a service per variant, so it needs --embedded");
    }
    options.variantList().ifPresent(v -> OverloadVariant.check("--variants", v));
    if (options.door() == Door.GRPC
        && options.variantList().map(v -> v.contains("netflix-")).orElse(false)) {
      throw new IllegalArgumentException("--door grpc runs Sluice's variants only: under"
          + " demo.limiter-peer the demo's gRPC door is unguarded, so --variants "
          + options.variantList().get() + " would measure no limiter there");
    }
    if (options.overload().empty()) {
      throw new IllegalArgumentException("--points none leaves nothing to run without --step");
    }
    if (options.overload().step() && options.duration().toSeconds() < 6) {
      throw new IllegalArgumentException(
          "--step needs a --duration of at least 6s (three phases of 2 s) but was "
              + options.duration());
    }
  }

  @Override
  public Path run(Options options) throws Exception {
    OverloadOptions chosen = options.overload();
    String loadBefore = LoadAverage.read();
    Map<String, Capacity> capacities = new LinkedHashMap<>();
    for (JobKind kind : chosen.jobs()) {
      capacities.put(kind.id(), capacity(options, kind));
    }
    List<SweepResult> sweep = new ArrayList<>();
    List<StepResult> step = new ArrayList<>();
    for (JobKind kind : chosen.jobs()) {
      Capacity capacity = capacities.get(kind.id());
      List<OverloadVariant> variants =
          OverloadVariant.forKind("--variants", options.variantList().orElse(null), kind).stream()
              // the gRPC door is unguarded under a limiter peer: nothing of the peer to measure
              .filter(v -> options.door() == Door.HTTP || !OverloadVerdict.peer(v.name()))
              .toList();
      for (double point : chosen.points()) {
        for (OverloadVariant variant : variants) {
          SweepResult r = sweepPoint(options, kind, variant, point, capacity);
          sweep.add(r);
          OverloadReport.print(r);
        }
      }
      if (chosen.step()) {
        for (OverloadVariant variant : variants) {
          StepResult r = stepRun(options, kind, variant, capacity);
          step.add(r);
          OverloadReport.print(r);
        }
      }
    }
    String loadAfter = LoadAverage.read();
    List<Verdict> doorVerdicts =
        options.door() == Door.GRPC ? DoorVerdict.of(capacities.keySet(), sweep) : List.of();
    List<Verdict> verdicts = OverloadReport.verdicts(capacities, sweep, step, doorVerdicts);
    Path report = Reporter.write(
        OverloadReport.of(
                options.duration().toSeconds(),
                loadBefore,
                loadAfter,
                capacities,
                sweep,
                step,
                verdicts)
            .summary("scenario", id())
            .summary("door", options.door().id())
            .summary("verdicts", verdicts)
            .summary("durationSeconds", options.duration().toSeconds())
            .summary("loadAverageBefore", loadBefore)
            .summary("loadAverageAfter", loadAfter)
            .summary("capacity", capacities)
            .summary("sweep", sweep)
            .summary("step", step)
            .build(),
        options.out());
    return report;
  }

  /** The kind's capacity on a demo with Sluice off; derived from the cores if the probe fails. */
  private static Capacity capacity(Options options, JobKind kind) {
    List<String> properties = new ArrayList<>(List.of("sluice.enabled=false"));
    int grpcPort = 0;
    try {
      if (options.door() == Door.GRPC) {
        grpcPort = DemoProcess.freePort();
        properties.add(GRPC_PORT + "=" + grpcPort);
      }
    } catch (IOException e) {
      System.out.println(kind.id() + " capacity not measured (" + e + "); derived from the cores");
      return Capacity.derived(kind, Runtime.getRuntime().availableProcessors());
    }
    properties.addAll(options.serverProperties());
    Path log = options.out().resolve("server-overload-" + kind.id() + "-capacity.log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      Capacity c = CapacityProbe.measure(demo.uri(), kind, grpcPort)
          .withFramesPerMilli(Capacity.calibratedRate(Files.readString(log)));
      System.out.printf(
          Locale.ROOT,
          "%-5s capacity %.1f jobs/s measured (%.1f derived), unloaded p50/p99"
              + " %.1f/%.1f ms over %d jobs; every service gets %s=%.4f%n",
          kind.id(),
          c.measuredPerSecond(),
          c.derivedPerSecond(),
          c.unloadedP50Millis(),
          c.unloadedP99Millis(),
          c.unloadedJobs(),
          Capacity.FRAMES_PER_MILLI,
          c.framesPerMilli());
      return c;
    } catch (Exception e) {
      System.out.println(kind.id() + " capacity not measured (" + e + "); derived from the cores");
      return Capacity.derived(kind, Runtime.getRuntime().availableProcessors());
    }
  }

  private static SweepResult sweepPoint(
      Options options, JobKind kind, OverloadVariant variant, double point, Capacity capacity) {
    double rate = capacity.offered(point);
    Workload workload = workload(kind, "overload/" + kind.id(), rate, t -> rate, rate);
    String name = String.format(Locale.ROOT, "%s-%s-%sx", kind.id(), variant.name(), num(point));
    Outcome o = runOnDemo(
        options, kind, variant.onMachine(kind, capacity.cores()), capacity, workload, name, true);
    if (o.error != null) {
      return SweepResult.failed(kind, variant, point, LoadAverage.read(), o.error);
    }
    long seconds = o.run.durationSeconds();
    RunFigures figures = RunFigures.of(
        o.answers,
        o.run.accounting().totalSent(),
        o.run.samples(),
        SweepResult.steadyFrom(seconds),
        (double) seconds,
        capacity,
        variant.limiterName());
    return new SweepResult(
        kind.id(),
        variant.name(),
        variant.description(),
        point,
        rate,
        figures,
        LoadAverage.read(),
        null,
        o.run,
        o.door);
  }

  private static StepResult stepRun(
      Options options, JobKind kind, OverloadVariant variant, Capacity capacity) {
    StepLoad load = StepLoad.thirds(capacity.offered(1), options.duration().toSeconds());
    Workload workload =
        workload(kind, "overload-step/" + kind.id(), load.baseRate(), load::rate, load.peakRate());
    Outcome o = runOnDemo(
        options,
        kind,
        variant.onMachine(kind, capacity.cores()),
        capacity,
        workload,
        kind.id() + "-" + variant.name() + "-step",
        false);
    if (o.error != null) {
      return StepResult.failed(kind, variant, load, LoadAverage.read(), o.error);
    }
    return StepResult.of(
        kind,
        variant,
        load,
        o.answers,
        o.run.accounting().totalSent(),
        o.run,
        capacity,
        LoadAverage.read());
  }

  private static Workload workload(
      JobKind kind, String id, double rate, DoubleUnaryOperator rateAt, double peak) {
    return new Workload(
        id,
        (int) Math.round(kind.meanCpuMillis()),
        kind.path(0),
        cores -> rate,
        (r, duration) -> kind.streams(rateAt, peak),
        1);
  }

  /**
   * What a run on a fresh demo gave: the run and its answers (and through the gRPC door its door
   * figures), or why it did not run.
   */
  private record Outcome(RunSummary run, List<Answer> answers, DoorFigures door, String error) {
    static Outcome failed(String error) {
      return new Outcome(null, null, null, error);
    }
  }

  /**
   * @param watched through the gRPC door: whether to read the thread count and send the retrying
   *     client's calls (the sweep's runs, not the step test's)
   */
  private static Outcome runOnDemo(
      Options options,
      JobKind kind,
      OverloadVariant variant,
      Capacity capacity,
      Workload workload,
      String name,
      boolean watched) {
    List<String> properties = new ArrayList<>(variant.serverProperties());
    // the same work per job as where the capacity was measured, or goodput compares unlike jobs
    capacity.sameWorkProperty().ifPresent(properties::add);
    int grpcPort = 0;
    if (options.door() == Door.GRPC) {
      try {
        grpcPort = DemoProcess.freePort();
      } catch (IOException e) {
        return Outcome.failed(e.toString());
      }
      properties.add(GRPC_PORT + "=" + grpcPort);
    }
    properties.addAll(options.serverProperties()); // the command line's -D come last and win
    Path log = options.out().resolve("server-overload-" + name + ".log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      List<String> unknown = DemoProcess.unknownKeys(Files.readString(log), variant.sluiceKeys());
      if (!unknown.isEmpty()) {
        return Outcome.failed(
            "the service does not know " + unknown + " (see " + log.getFileName() + ")");
      }
      Optional<String> wrong = variant.mismatch(sluice(demo));
      if (wrong.isPresent()) {
        return Outcome.failed(wrong.get());
      }
      AnswerLog answers = new AnswerLog(System::nanoTime);
      if (options.door() == Door.HTTP) {
        RunSummary run = new LoadRun(options, workload, answers.wrap()).run(demo.uri(), name);
        return new Outcome(run, answers.answers(), null, null);
      }
      double rate = workload.rate().applyAsDouble(capacity.cores());
      try (GrpcDoorRun door =
          new GrpcDoorRun(demo.pid(), grpcPort, kind, rate, options.duration(), watched)) {
        if (!watched) {
          door.awaitReady();
          RunSummary run = new LoadRun(options, workload, door.transport(answers.wrap()))
              .run(demo.uri(), name + " over gRPC");
          return new Outcome(run, answers.answers(), null, null);
        }
        ThreadCount.Range unloaded;
        try (HttpTransport http = new HttpTransport(demo.uri(), Duration.ofSeconds(60))) {
          unloaded = door.unloaded(http);
        }
        RunSummary run = new LoadRun(options, workload, door.transport(answers.wrap()))
            .run(demo.uri(), name + " over gRPC");
        DoorFigures figures =
            door.finish(unloaded, run.samples(), variant.limiterName(), options.drain());
        DoorReport.print(kind.id() + " " + variant.name(), figures);
        return new Outcome(run, answers.answers(), figures, null);
      }
    } catch (Exception e) {
      return Outcome.failed(e.toString());
    }
  }

  private static String sluice(DemoProcess demo) throws Exception {
    try (HttpTransport http = new HttpTransport(demo.uri(), Duration.ofSeconds(10))) {
      return http.get("/sluice").body();
    }
  }

  /** The demo's property that opens its gRPC door on a port. */
  static final String GRPC_PORT = "demo.grpc.port";

  static String num(double point) {
    return point == Math.rint(point)
        ? Long.toString((long) point)
        : String.format(Locale.ROOT, "%.1f", point);
  }
}
