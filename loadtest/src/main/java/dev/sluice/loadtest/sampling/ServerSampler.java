package dev.sluice.loadtest.sampling;

import dev.sluice.loadtest.engine.HttpTransport;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Polls {@code /metrics} (process CPU, see {@link ServiceCpu}, and system CPU) and {@code /sluice}
 * (in-flight, queued, limit) once a second on its own thread, with blocking calls: a slow answer
 * delays the next sample, never a send.
 */
public final class ServerSampler implements AutoCloseable {

  private final HttpTransport http;
  private final long startNanos;
  private final ServiceCpu processCpu = new ServiceCpu();
  private final List<ServerSample> samples = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "loadtest-sampler");
    thread.setDaemon(true);
    return thread;
  });

  public ServerSampler(HttpTransport http, long startNanos) {
    this.http = http;
    this.startNanos = startNanos;
  }

  // load-test tool: a periodic task that throws stops, which shows as missing samples in the report
  @SuppressWarnings("FutureReturnValueIgnored")
  public void start() {
    timer.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
  }

  private void sample() {
    double second = (System.nanoTime() - startNanos) / 1e9;
    double process = Double.NaN;
    double system = Double.NaN;
    Map<String, ServerSample.LimiterLoad> limiters = Map.of();
    try {
      String metrics = http.get("/metrics").body();
      process = processCpu.percent(
          PrometheusText.value(metrics, "process_cpu_time_ns_total").orElse(Double.NaN),
          System.nanoTime(),
          PrometheusText.value(metrics, "system_cpu_count").orElse(Double.NaN),
          PrometheusText.value(metrics, "process_cpu_usage").orElse(Double.NaN) * 100);
      system = PrometheusText.value(metrics, "system_cpu_usage").orElse(Double.NaN) * 100;
    } catch (Exception e) {
      // a missed sample shows as a gap in the chart
    }
    try {
      limiters = SluiceSnapshot.limiters(http.get("/sluice").body());
    } catch (Exception e) {
      // same
    }
    synchronized (samples) {
      samples.add(new ServerSample(second, process, system, limiters));
    }
  }

  public List<ServerSample> samples() {
    synchronized (samples) {
      return List.copyOf(samples);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
