package dev.sluice.loadtest.scenario;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.engine.ArrivalPlan;
import dev.sluice.loadtest.engine.HttpTransport;
import dev.sluice.loadtest.engine.Ledger;
import dev.sluice.loadtest.engine.LoadClock;
import dev.sluice.loadtest.engine.Observations;
import dev.sluice.loadtest.engine.OpenLoopDispatcher;
import dev.sluice.loadtest.engine.RetryAfterBackoff;
import dev.sluice.loadtest.engine.RetryingClient;
import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.engine.Transport;
import dev.sluice.loadtest.engine.Workload;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.PrometheusText;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ServerSample;
import dev.sluice.loadtest.sampling.ServerSampler;
import java.net.URI;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.UnaryOperator;

/**
 * One run of a workload against one service: calibrate, send the plan, drain, summarise. Every
 * open-loop experiment runs its traffic through it.
 */
public final class LoadRun {

  private static final int CALIBRATION_JOBS = 5;

  private final Options options;
  private final Workload workload;
  private final UnaryOperator<Transport> transport;

  /** A run of the workload with the command line's duration, seed and drain. */
  public LoadRun(Options options, Workload workload) {
    this(options, workload, UnaryOperator.identity());
  }

  /**
   * @param transport wraps the HTTP transport of the workload's requests (e.g. to count them)
   */
  public LoadRun(Options options, Workload workload, UnaryOperator<Transport> transport) {
    this.options = options;
    this.workload = workload;
    this.transport = transport;
  }

  /**
   * Runs the workload against {@code target}.
   *
   * @param label names the run in the report and the summary
   */
  public RunSummary run(URI target, String label) throws Exception {
    try (HttpTransport http = new HttpTransport(target, Duration.ofMinutes(5))) {
      int cores = serverCores(http);
      double unloaded = unloadedServiceMillis(http);
      double rate = workload.rate().applyAsDouble(cores);
      List<TrafficStream> streams = workload.streams().apply(rate, options.duration());
      ArrivalPlan plan = ArrivalPlan.generate(streams, options.duration(), options.seed());

      long seconds = options.duration().toSeconds() + options.drain().toSeconds() + 2;
      Observations observations = new Observations((int) seconds);
      Ledger ledger = new Ledger();
      LoadClock clock = LoadClock.system();
      long start = clock.nanoTime();
      RetryingClient client = new RetryingClient(
          transport.apply(http),
          clock,
          RetryAfterBackoff.defaults(options.seed()),
          workload.maxAttempts(),
          ledger,
          observations,
          start);
      System.out.printf(
          "%s: %s, %d requests over %s (transcode %.1f/s offered, %d ms each, %d cores)%n",
          label, workload.id(), plan.size(), options.duration(), rate, workload.cpuMillis(), cores);
      try (ServerSampler sampler = new ServerSampler(http, start)) {
        sampler.start();
        new OpenLoopDispatcher(plan, clock, client).start().get();
        long drainUntil = System.nanoTime() + options.drain().toNanos();
        while (ledger.openCount() > 0 && System.nanoTime() - drainUntil < 0) {
          Thread.sleep(50); // waiting for real responses on the real clock
        }
        Accounting accounting = ledger.close().verify();
        double sentSeconds = options.duration().toMillis() / 1000.0;
        List<ServerSample> samples = sampler.samples();
        return new RunSummary(
            label,
            workload.id(),
            target.toString(),
            options.seed(),
            options.duration().toSeconds(),
            rate,
            workload.cpuMillis(),
            cores,
            unloaded,
            accounting,
            percentiles(observations.latency(), 1000),
            percentiles(observations.serviceMillis(), 1),
            percentiles(observations.queuedMillis(), 1),
            RunSummary.Cpu.of(samples, sentSeconds),
            samples,
            trim(observations.statusPerSecond(), samples));
      }
    }
  }

  private static int serverCores(HttpTransport http) {
    try {
      return (int) PrometheusText.value(http.get("/metrics").body(), "system_cpu_count")
          .orElse(Runtime.getRuntime().availableProcessors());
    } catch (Exception e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }

  /** Median service time of a few jobs sent one after the other to the idle service. */
  private double unloadedServiceMillis(HttpTransport http) throws Exception {
    ObjectMapper json = new ObjectMapper();
    List<Double> times = new ArrayList<>();
    for (int i = 0; i < CALIBRATION_JOBS; i++) {
      HttpResponse<String> response = http.client()
          .send(
              java.net.http.HttpRequest.newBuilder(http.base().resolve(workload.calibrationPath()))
                  .POST(java.net.http.HttpRequest.BodyPublishers.noBody())
                  .timeout(Duration.ofSeconds(30))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (response.statusCode() == 200) {
        times.add(json.readTree(response.body()).path("serviceMillis").asDouble());
      }
    }
    if (times.isEmpty()) {
      return Double.NaN;
    }
    Collections.sort(times);
    return times.get(times.size() / 2);
  }

  private static Map<String, Percentiles> percentiles(
      Map<String, org.HdrHistogram.Histogram> histograms, double unitsPerMilli) {
    Map<String, Percentiles> result = new TreeMap<>();
    histograms.forEach((k, h) -> result.put(k, Percentiles.of(h, unitsPerMilli)));
    return result;
  }

  /** Drops the empty tail of the timeline (the drain usually ends early). */
  private static Map<String, long[]> trim(
      Map<String, long[]> perSecond, List<ServerSample> samples) {
    int last = samples.isEmpty() ? 0 : (int) samples.get(samples.size() - 1).second();
    for (long[] counts : perSecond.values()) {
      for (int i = counts.length - 1; i > last; i--) {
        if (counts[i] != 0) {
          last = i;
          break;
        }
      }
    }
    int length = last + 1;
    Map<String, long[]> trimmed = new TreeMap<>();
    perSecond.forEach(
        (k, v) -> trimmed.put(k, java.util.Arrays.copyOf(v, Math.min(v.length, length))));
    return trimmed;
  }
}
