package dev.sluice.loadtest.adaptive;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.scenario.LoadRun;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * {@code --scenario adaptive}: for each job mix and each overload, the variants one after another,
 * each against a fresh embedded demo service, then one report. The jobs are tried once (no retries),
 * so the offered load is the multiple asked for and every latency is one try's.
 */
public final class AdaptiveRun implements Experiment {

  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String id() {
    return "adaptive";
  }

  @Override
  public Set<String> ownOptions() {
    return Set.of("--mix", "--overload", "--variants");
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario adaptive starts a service per variant, so it needs --embedded");
    }
    AdaptiveVariant.parse(
        "--variants", options.adaptiveVariants(), 1); // fail now, naming the bad one
  }

  /** Runs the comparison and returns the report's path. */
  @Override
  public Path run(Options options) throws IOException {
    int cores = Runtime.getRuntime().availableProcessors(); // the demo runs on this machine
    List<AdaptiveVariant> variants =
        AdaptiveVariant.parse("--variants", options.adaptiveVariants(), cores);
    List<AdaptiveResult> results = new ArrayList<>();
    for (JobMix mix : options.mixes()) {
      for (double overload : options.overloads()) {
        for (AdaptiveVariant variant : variants) {
          AdaptiveResult result = runOne(options, mix, variant, overload);
          results.add(result);
          print(result);
        }
      }
    }
    Path report =
        Reporter.write(AdaptiveReport.of(results, options.duration().toSeconds()), options.out());
    return report;
  }

  private static AdaptiveResult runOne(
      Options options, JobMix mix, AdaptiveVariant variant, double overload) {
    String before = LoadAverage.read();
    List<String> properties = new ArrayList<>(variant.serverProperties());
    properties.addAll(options.serverProperties()); // the command line's -D come last and win
    Path log = options
        .out()
        .resolve(String.format(
            Locale.ROOT, "server-adaptive-%s-%s-%sx.log", mix.id(), variant.name(), num(overload)));
    String label =
        String.format(Locale.ROOT, "%s, %sx, %s", mix.id(), num(overload), variant.name());
    try (DemoProcess demo = DemoProcess.start(properties, log)) {
      List<String> ignored = ignoredKeys(Files.readString(log), variant);
      if (!ignored.isEmpty()) {
        return AdaptiveResult.failed(
            mix,
            variant,
            overload,
            before,
            "the service does not know " + ignored + " (see " + log.getFileName() + ")");
      }
      Optional<String> wrong = wrongStrategy(sluice(demo.uri()), variant);
      if (wrong.isPresent()) {
        return AdaptiveResult.failed(mix, variant, overload, before, wrong.get());
      }
      RunSummary run = new LoadRun(options, mix.workload(overload)).run(demo.uri(), label);
      return AdaptiveResult.of(mix, variant, overload, run, before, LoadAverage.read());
    } catch (Exception e) {
      return AdaptiveResult.failed(mix, variant, overload, before, e.toString());
    }
  }

  /**
   * The variant's keys the service logged as unknown: it ran, but not as this variant (a plugin
   * without adaptive limits warns and keeps a fixed limit), so its figures would be a lie.
   */
  static List<String> ignoredKeys(String serviceLog, AdaptiveVariant variant) {
    return DemoProcess.unknownKeys(serviceLog, variant.sluiceKeys());
  }

  /**
   * Why the service is not running as the variant, from its {@code /sluice}: the limiter is missing,
   * or shows another {@code limitKind} (the plugin's status). A service whose {@code /sluice} has no such field
   * (older than the adaptive limits) is trusted on the log check alone.
   */
  static Optional<String> wrongStrategy(String sluiceBody, AdaptiveVariant variant) {
    JsonNode limiter = null;
    try {
      for (JsonNode l : JSON.readTree(sluiceBody).path("limiters")) {
        if (variant.limiterName().equals(l.path("name").asText())) {
          limiter = l;
        }
      }
    } catch (IOException notJson) {
      return Optional.of("/sluice did not answer JSON: " + notJson.getMessage());
    }
    if (limiter == null) {
      return Optional.of("/sluice lists no limiter " + variant.limiterName());
    }
    String strategy = limiter.path("limitKind").asText(null);
    if (variant.strategy() != null && strategy != null && !variant.strategy().equals(strategy)) {
      return Optional.of("limiter " + variant.limiterName() + " runs strategy " + strategy
          + ", not " + variant.strategy());
    }
    return Optional.empty();
  }

  private static String sluice(URI service) throws IOException, InterruptedException {
    return HttpClient.newHttpClient()
        .send(
            HttpRequest.newBuilder(service.resolve("sluice"))
                .timeout(Duration.ofSeconds(10))
                .build(),
            HttpResponse.BodyHandlers.ofString())
        .body();
  }

  private static void print(AdaptiveResult r) {
    if (r.error() != null) {
      System.out.printf(
          Locale.ROOT,
          "%-6s %4sx %-18s NOT RUN: %s%n",
          r.mix(),
          num(r.overload()),
          r.variant(),
          r.error());
      return;
    }
    System.out.printf(
        Locale.ROOT,
        "%-6s %4sx %-18s CPU %5.1f%% (sd %4.1f, p10 %5.1f, p90 %5.1f)  goodput %5.2f/s (%3.0f%% of"
            + " target capacity)  200 %d, 429 %d, 504 %d, other %d  429 p50/p99 %.0f/%.0f ms"
            + "  200 p99 %.0f ms  limit %.1f  load %s%n",
        r.mix(),
        num(r.overload()),
        r.variant(),
        r.processCpu().mean(),
        r.processCpu().stddev(),
        r.processCpu().p10(),
        r.processCpu().p90(),
        r.goodputPerSecond(),
        100 * r.goodputOfTarget(),
        r.ok(),
        r.rejected(),
        r.timedOut(),
        r.other(),
        r.rejectedMillisP50(),
        r.rejectedMillisP99(),
        r.admittedMillisP99(),
        r.limit().mean(),
        r.loadAverageAfter());
  }

  static String num(double overload) {
    return overload == Math.rint(overload)
        ? Long.toString((long) overload)
        : String.format(Locale.ROOT, "%.1f", overload);
  }
}
