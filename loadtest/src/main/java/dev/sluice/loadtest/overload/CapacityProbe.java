package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.GrpcTransport;
import dev.sluice.loadtest.engine.HttpTransport;
import dev.sluice.loadtest.sampling.PrometheusText;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Measures a kind's {@link Capacity} on a service without a limiter: first a closed loop of
 * {@code 2 x cores} workers (each sends its next job when the last one answered, so the CPU is kept
 * busy without a queue growing) whose completions over a few seconds, after a warm-up, are the
 * capacity; then one job at a time for the unloaded latency (through the door the run uses).
 */
final class CapacityProbe {

  static final Duration WARM_UP = Duration.ofSeconds(2);
  static final Duration MEASURED = Duration.ofSeconds(5);
  /** Sequential jobs for the unloaded latency: about 2 s of them, at least 10. */
  static final int UNLOADED_MILLIS = 2000;

  private CapacityProbe() {}

  static Capacity measure(URI service, JobKind kind) throws Exception {
    return measure(service, kind, 0);
  }

  /**
   * @param grpcPort the service's gRPC door on the same host, through which the unloaded jobs go
   *     (the closed loop stays HTTP: it measures the machine); 0 for the HTTP door
   */
  static Capacity measure(URI service, JobKind kind, int grpcPort) throws Exception {
    try (HttpTransport http = new HttpTransport(service, Duration.ofSeconds(60));
        GrpcTransport grpc = grpcPort == 0
            ? null
            : new GrpcTransport(service.getHost(), grpcPort, Duration.ofSeconds(60))) {
      int cores = cores(http);
      Capacity derived = Capacity.derived(kind, cores);
      double perSecond = closedLoop(http, kind, 2 * cores);
      if (grpc != null) {
        grpc.awaitReady(GrpcDoorRun.DOOR_READY);
      }
      List<Double> latencies = new ArrayList<>();
      int jobs = Math.max(10, (int) (UNLOADED_MILLIS / kind.meanCpuMillis()));
      for (int i = 0; i < jobs; i++) {
        long sent = System.nanoTime();
        int status = grpc == null
            ? post(http, kind.path(i)).statusCode()
            : grpc.routing(http)
                .send(new Arrival(0, "unloaded", "POST", kind.path(i), Map.of()))
                .get(60, TimeUnit.SECONDS)
                .status();
        if (status == 200) {
          latencies.add((System.nanoTime() - sent) / 1e6);
        }
      }
      Collections.sort(latencies);
      return new Capacity(
          kind.id(),
          cores,
          perSecond,
          derived.derivedPerSecond(),
          RunFigures.rank(latencies, 0.50),
          RunFigures.rank(latencies, 0.99),
          latencies.size(),
          Double.NaN);
    }
  }

  /** Jobs answered 200 per second in the measured window of a closed loop. */
  private static double closedLoop(HttpTransport http, JobKind kind, int workers) throws Exception {
    long start = System.nanoTime();
    long from = start + WARM_UP.toNanos();
    long until = from + MEASURED.toNanos();
    AtomicLong completed = new AtomicLong();
    AtomicLong sent = new AtomicLong();
    List<CompletableFuture<Void>> loops = new ArrayList<>();
    for (int w = 0; w < workers; w++) {
      CompletableFuture<Void> done = new CompletableFuture<>();
      next(http, kind, sent, completed, from, until, done);
      loops.add(done);
    }
    CompletableFuture.allOf(loops.toArray(CompletableFuture[]::new)).get();
    return completed.get() / (MEASURED.toNanos() / 1e9);
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private static void next(
      HttpTransport http,
      JobKind kind,
      AtomicLong sent,
      AtomicLong completed,
      long from,
      long until,
      CompletableFuture<Void> done) {
    if (System.nanoTime() - until >= 0) {
      done.complete(null);
      return;
    }
    http.client()
        .sendAsync(
            request(http, kind.path((int) sent.getAndIncrement())),
            HttpResponse.BodyHandlers.discarding())
        .whenComplete((response, error) -> {
          long now = System.nanoTime();
          if (error == null && response.statusCode() == 200 && now - from >= 0 && now - until < 0) {
            completed.incrementAndGet();
          }
          next(http, kind, sent, completed, from, until, done);
        });
  }

  private static HttpResponse<String> post(HttpTransport http, String path) throws Exception {
    return http.client().send(request(http, path), HttpResponse.BodyHandlers.ofString());
  }

  private static HttpRequest request(HttpTransport http, String path) {
    return HttpRequest.newBuilder(http.base().resolve(path))
        .timeout(Duration.ofSeconds(60))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
  }

  private static int cores(HttpTransport http) {
    try {
      return (int) PrometheusText.value(http.get("/metrics").body(), "system_cpu_count")
          .orElse(Runtime.getRuntime().availableProcessors());
    } catch (Exception e) {
      return Runtime.getRuntime().availableProcessors();
    }
  }
}
