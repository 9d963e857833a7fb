package dev.sluice.loadtest.monday;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.sampling.LoadAverage;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * {@code --scenario monday}: the Monday maintenance window replayed with real ffmpeg. The clip
 * library is made once under {@code --out}/clips; then each variant ({@code --variants}, default
 * {@code none,static,cpu,cpu+cost}) runs on a fresh demo service with {@code demo.engine=ffmpeg}
 * for {@code --duration} (default 10 minutes), one after the other, and one report judges them.
 */
public final class MondayReplay implements Experiment {

  private final ClipLibrary library;

  /** The replay with its library of 2-60 s clips at 360p and 720p. */
  public MondayReplay() {
    this(ClipLibrary.MONDAY);
  }

  /** With another library (a test's tiny clips). */
  public MondayReplay(ClipLibrary library) {
    this.library = library;
  }

  @Override
  public String id() {
    return "monday";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--variants");
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofMinutes(10);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario monday starts a demo service per variant, so it needs --embedded");
    }
    variants(options, 1); // fail now, naming the bad one
  }

  private static List<MondayVariant> variants(Options options, int cores) {
    return MondayVariant.parse(
        "--variants", options.variantList().orElse(MondayVariant.DEFAULT_NAMES), cores);
  }

  @Override
  public Path run(Options options) throws IOException, InterruptedException {
    int cores = Runtime.getRuntime().availableProcessors(); // the demo runs on this machine
    List<MondayVariant> variants = variants(options, cores);
    Path clipDir = options.out().resolve("clips");
    System.out.println("clip library: " + library.missing(clipDir).size() + " of "
        + library.clips().size() + " clips to make in " + clipDir);
    List<Path> files = library.ensure(clipDir, "ffmpeg");
    List<MondayResult> results = new ArrayList<>();
    for (MondayVariant variant : variants) {
      MondayResult result = runOne(options, variant, files);
      results.add(result);
      System.out.println(MondayVerdict.judge(List.of(result)).get(0).line());
    }
    List<MondayVerdict> verdicts = MondayVerdict.judge(results);
    Path report = Reporter.write(
        MondayReport.of(results, verdicts, command(options))
            .summary("scenario", id())
            .summary("windowSeconds", options.duration().toMillis() / 1000.0)
            .summary("cores", cores)
            .summary("clips", library.clips())
            .summary("verdicts", verdicts)
            .summary("results", results)
            .build(),
        options.out());
    return report;
  }

  // the sampler stops before the result is built; the try closes it when the run fails
  @SuppressWarnings("try")
  private MondayResult runOne(Options options, MondayVariant variant, List<Path> files) {
    double window = options.duration().toMillis() / 1000.0;
    String before = LoadAverage.read();
    List<String> properties = new ArrayList<>(variant.serverProperties());
    properties.addAll(options.serverProperties()); // the command line's -D come last and win
    Path log = options.out().resolve("server-monday-" + variant.name().replace('+', '-') + ".log");
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      List<String> unknown = DemoProcess.unknownKeys(
          Files.readString(log),
          variant.properties().stream()
              .filter(p -> p.startsWith("sluice.limiters."))
              .map(p -> p.substring(0, p.indexOf('=')))
              .toList());
      if (!unknown.isEmpty()) {
        return MondayResult.failed(
            variant,
            window,
            "the service does not know " + unknown + " (see " + log.getFileName() + ")",
            before);
      }
      long start = System.nanoTime();
      try (MachineSampler sampler = new MachineSampler(demo.uri(), start)) {
        sampler.start();
        MondayTally tally = new MondayLoad(
                demo.uri(), library, files, options.duration(), options.drain(), options.seed())
            .run(start);
        sampler.close();
        return MondayResult.of(
            variant,
            window,
            tally,
            windowOnly(sampler.trace(), window),
            sampler.limits(),
            before,
            LoadAverage.read());
      }
    } catch (IOException | RuntimeException e) {
      return MondayResult.failed(variant, window, e.toString(), before);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return MondayResult.failed(variant, window, "interrupted", before);
    }
  }

  /** The readings inside the window: the drain after it is not part of the Monday. */
  static CpuTrace windowOnly(CpuTrace trace, double windowSeconds) {
    return new CpuTrace(trace.samples().stream()
        .filter(s -> s.endSecond() <= windowSeconds + 0.5)
        .toList());
  }

  private static String command(Options options) {
    return options.replay("monday", " --drain " + options.drain().toSeconds() + "s");
  }
}
