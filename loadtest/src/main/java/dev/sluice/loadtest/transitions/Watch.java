package dev.sluice.loadtest.transitions;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.sampling.ProcessCpu;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Reads the nodes' own records while a part runs: every {@value #EVERY_MILLIS} ms each watched
 * node's {@code transcode} limiter from {@code /sluice} (in flight, queued), and, for a node
 * given a pid, its process CPU ({@link ProcessCpu}) as percent of the machine.
 */
final class Watch implements AutoCloseable {

  static final long EVERY_MILLIS = 100;
  static final String LIMITER = "transcode";
  private static final ObjectMapper JSON = new ObjectMapper();

  private final HttpClient http;
  private final long startNanos;
  private final Map<Integer, URI> nodes = new ConcurrentHashMap<>();
  private final Map<Integer, Long> pids = new ConcurrentHashMap<>();
  private final List<Figures.InFlight> readings = new CopyOnWriteArrayList<>();
  private final List<Figures.Cpu> cpu = new CopyOnWriteArrayList<>();
  private final Thread thread;
  private volatile boolean running = true;

  Watch(HttpClient http, long startNanos) {
    this.http = http;
    this.startNanos = startNanos;
    this.thread = new Thread(this::loop, "transitions-watch");
    this.thread.setDaemon(true);
  }

  void start() {
    thread.start();
  }

  /** Watches node {@code n}; with {@code pid} > 0 its CPU too. */
  void watch(int n, URI uri, long pid) {
    nodes.put(n, uri);
    if (pid > 0) {
      pids.put(n, pid);
    }
  }

  void forget(int n) {
    nodes.remove(n);
    pids.remove(n);
  }

  List<Figures.InFlight> readings() {
    return List.copyOf(readings);
  }

  List<Figures.Cpu> cpu() {
    return List.copyOf(cpu);
  }

  private void loop() {
    int cores = Runtime.getRuntime().availableProcessors();
    long lastCpuNanos = -1;
    long lastCpuAt = 0;
    long nextCpu = System.nanoTime();
    while (running) {
      long round = System.nanoTime();
      for (Map.Entry<Integer, URI> node : nodes.entrySet()) {
        try {
          JsonNode limiter = limiter(node.getValue());
          readings.add(new Figures.InFlight(
              System.nanoTime(),
              node.getKey(),
              limiter.path("inFlight").asInt(),
              limiter.path("queued").asInt()));
        } catch (IOException e) {
          // a node starting, stopping or killed: no reading this round
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
      }
      // CPU of the one node given a pid, every 500 ms
      if (!pids.isEmpty() && round - nextCpu >= 0) {
        long pid = pids.values().iterator().next();
        long nanos = ProcessCpu.nanos(pid);
        long now = System.nanoTime();
        if (lastCpuNanos >= 0 && nanos >= 0) {
          cpu.add(new Figures.Cpu(
              (now - startNanos) / 1e9,
              100.0 * (nanos - lastCpuNanos) / ((now - lastCpuAt) * (double) cores)));
        }
        lastCpuNanos = nanos;
        lastCpuAt = now;
        nextCpu = round + 500_000_000L;
      }
      long left = round + EVERY_MILLIS * 1_000_000 - System.nanoTime();
      if (left > 0) {
        java.util.concurrent.locks.LockSupport.parkNanos(left); // the polling cadence
      }
    }
  }

  /** The {@value #LIMITER} limiter of a node's {@code /sluice}. */
  JsonNode limiter(URI node) throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(node.resolve("sluice"))
            .timeout(Duration.ofSeconds(2))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    for (JsonNode limiter : JSON.readTree(response.body()).path("limiters")) {
      if (LIMITER.equals(limiter.path("name").asText())) {
        return limiter;
      }
    }
    String body = response.body();
    throw new IOException("no limiter " + LIMITER + " in " + node.resolve("sluice") + " (HTTP "
        + response.statusCode() + ": " + (body.length() > 200 ? body.substring(0, 200) + "…" : body)
        + ")");
  }

  @Override
  public void close() {
    running = false;
    try {
      thread.join(5_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
