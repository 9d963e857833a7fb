package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.engine.HttpTransport;
import dev.sluice.loadtest.engine.Workload;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.scenario.LoadRun;
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
 * is one try's.
 */
public final class OverloadRun implements Experiment {

  @Override
  public String id() {
    return "overload";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--points", "--jobs", "--step", "--variants");
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
          OverloadVariant.forKind("--variants", options.variantList().orElse(null), kind);
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
    List<Verdict> verdicts = OverloadVerdict.of(capacities.keySet(), sweep, step);
    Path report = Reporter.write(
        OverloadReport.of(
                options.duration().toSeconds(), loadBefore, loadAfter, capacities, sweep, step)
            .summary("scenario", id())
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
    properties.addAll(options.serverProperties());
    Path log = options.out().resolve("server-overload-" + kind.id() + "-capacity.log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      Capacity c = CapacityProbe.measure(demo.uri(), kind)
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
    Outcome o =
        runOnDemo(options, variant.onMachine(kind, capacity.cores()), capacity, workload, name);
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
        o.run);
  }

  private static StepResult stepRun(
      Options options, JobKind kind, OverloadVariant variant, Capacity capacity) {
    StepLoad load = StepLoad.thirds(capacity.offered(1), options.duration().toSeconds());
    Workload workload =
        workload(kind, "overload-step/" + kind.id(), load.baseRate(), load::rate, load.peakRate());
    Outcome o = runOnDemo(
        options,
        variant.onMachine(kind, capacity.cores()),
        capacity,
        workload,
        kind.id() + "-" + variant.name() + "-step");
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

  /** What a run on a fresh demo gave: the run and its answers, or why it did not run. */
  private record Outcome(RunSummary run, List<Answer> answers, String error) {}

  private static Outcome runOnDemo(
      Options options, OverloadVariant variant, Capacity capacity, Workload workload, String name) {
    List<String> properties = new ArrayList<>(variant.serverProperties());
    // the same work per job as where the capacity was measured, or goodput compares unlike jobs
    capacity.sameWorkProperty().ifPresent(properties::add);
    properties.addAll(options.serverProperties()); // the command line's -D come last and win
    Path log = options.out().resolve("server-overload-" + name + ".log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      List<String> unknown = DemoProcess.unknownKeys(Files.readString(log), variant.sluiceKeys());
      if (!unknown.isEmpty()) {
        return new Outcome(
            null,
            null,
            "the service does not know " + unknown + " (see " + log.getFileName() + ")");
      }
      Optional<String> wrong = variant.mismatch(sluice(demo));
      if (wrong.isPresent()) {
        return new Outcome(null, null, wrong.get());
      }
      AnswerLog answers = new AnswerLog(System::nanoTime);
      RunSummary run = new LoadRun(options, workload, answers.wrap()).run(demo.uri(), name);
      return new Outcome(run, answers.answers(), null);
    } catch (Exception e) {
      return new Outcome(null, null, e.toString());
    }
  }

  private static String sluice(DemoProcess demo) throws Exception {
    try (HttpTransport http = new HttpTransport(demo.uri(), Duration.ofSeconds(10))) {
      return http.get("/sluice").body();
    }
  }

  static String num(double point) {
    return point == Math.rint(point)
        ? Long.toString((long) point)
        : String.format(Locale.ROOT, "%.1f", point);
  }
}
