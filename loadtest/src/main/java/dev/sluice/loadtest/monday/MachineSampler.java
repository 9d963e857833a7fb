package dev.sluice.loadtest.monday;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Once a second: the machine's CPU since the last reading ({@code /proc/stat}, every process) and
 * the transcode limiter's limit from the service's {@code /sluice} (absent with Sluice off).
 */
public final class MachineSampler implements AutoCloseable {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final URI service;
  private final long startNanos;
  private final HttpClient http =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
  private final List<CpuTrace.Sample> cpu = new ArrayList<>();
  private final List<double[]> limits = new ArrayList<>();
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread thread = new Thread(r, "monday-sampler");
    thread.setDaemon(true);
    return thread;
  });
  private MachineCpu last;
  private long lastNanos;

  /**
   * @param service the service whose {@code /sluice} gives the transcode limit
   * @param startNanos second 0 of the trace, {@link System#nanoTime()}
   */
  public MachineSampler(URI service, long startNanos) {
    this.service = service;
    this.startNanos = startNanos;
  }

  // load-test tool: a periodic task that throws stops, which shows as missing samples in the report
  @SuppressWarnings("FutureReturnValueIgnored")
  public void start() {
    last = MachineCpu.read().orElse(null);
    lastNanos = System.nanoTime();
    timer.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
  }

  private void sample() {
    long now = System.nanoTime();
    Optional<MachineCpu> reading = MachineCpu.read();
    double second = (now - startNanos) / 1e9;
    if (reading.isPresent() && last != null) {
      synchronized (cpu) {
        cpu.add(
            new CpuTrace.Sample(second, (now - lastNanos) / 1e9, reading.get().percentSince(last)));
      }
    }
    last = reading.orElse(null);
    lastNanos = now;
    limit().ifPresent(limit -> {
      synchronized (limits) {
        limits.add(new double[] {second, limit});
      }
    });
  }

  private Optional<Double> limit() {
    try {
      String body = http.send(
              HttpRequest.newBuilder(service.resolve("sluice"))
                  .timeout(Duration.ofSeconds(1))
                  .build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
      for (JsonNode limiter : JSON.readTree(body).path("limiters")) {
        if ("transcode".equals(limiter.path("name").asText())
            && limiter.path("limit").isNumber()) {
          return Optional.of(limiter.get("limit").asDouble());
        }
      }
    } catch (Exception e) {
      if (e instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      // a missed reading is a gap in the chart
    }
    return Optional.empty();
  }

  /** The machine's CPU, one sample a second from {@link #start}. */
  public CpuTrace trace() {
    synchronized (cpu) {
      return new CpuTrace(List.copyOf(cpu));
    }
  }

  /** {@code [second, limit]} pairs. */
  List<double[]> limits() {
    synchronized (limits) {
      return List.copyOf(limits);
    }
  }

  @Override
  public void close() {
    timer.shutdownNow();
  }
}
