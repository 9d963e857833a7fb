package dev.sluice.client;

import dev.sluice.config.SluiceProperties;
import dev.sluice.javalin.SluicePlugin;
import io.javalin.Javalin;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A service that takes records at {@code POST /ingest/{lane}}, protected by Sluice's own rate rule
 * (one per lane, actor all, token bucket), on a free port. It counts every record it accepted, by
 * id (so duplicates show), and every arrival and 429 by wall-clock second (Sluice's filter runs
 * first, so a 429 never reaches the handler; an after-handler counts every answer).
 */
final class IngestServer implements AutoCloseable {

  private static final int SECONDS = 120;

  final Javalin app;
  final Map<String, AtomicLong> acceptedById = new ConcurrentHashMap<>();
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong rejected = new AtomicLong();
  /** The lane tests flood to measure what the machine carries ({@link #capacity}). */
  static final String PROBE_LANE = "probe";

  final AtomicLongArray acceptedPerSecond = new AtomicLongArray(SECONDS);
  final AtomicLongArray rejectedPerSecond = new AtomicLongArray(SECONDS);
  private final long startNanos = System.nanoTime();

  private IngestServer(Javalin app) {
    this.app = app;
  }

  /** Lanes and their limit per second: each lane {@code /ingest/NAME} has its own bucket. */
  static IngestServer start(Path dir, Map<String, Integer> lanes) throws IOException {
    StringBuilder rules = new StringBuilder("rules:\n");
    lanes.forEach((lane, perSecond) -> rules
        .append("  - id: ingest-")
        .append(lane)
        .append('\n')
        .append("    resource: /ingest/")
        .append(lane)
        .append('\n')
        .append("    method: POST\n    actor: all\n")
        .append("    limit: ")
        .append(perSecond)
        .append("\n    unit: second\n")
        .append("    algorithm: token-bucket\n    scope: local\n"));
    Path file = dir.resolve("ingest-rules.yaml");
    Files.writeString(file, rules.toString());
    SluiceProperties props = SluiceProperties.builder()
        .env(Map.of())
        .system(Map.of("sluice.rules.file", file.toString()))
        .build();
    IngestServer[] self = new IngestServer[1];
    Javalin javalin = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(new SluicePlugin(cfg -> cfg.properties(props)));
      config.jetty.threadPool = new org.eclipse.jetty.util.thread.QueuedThreadPool(64, 8);
      config.routes.post("/ingest/{lane}", ctx -> {
        String id = ctx.queryParam("id");
        self[0]
            .acceptedById
            .computeIfAbsent(id == null ? "?" : id, k -> new AtomicLong())
            .incrementAndGet();
        ctx.result("ok");
      });
      config.routes.after("/ingest/*", ctx -> {
        int second = self[0].second();
        // the capacity probe's flood is not traffic of the clients under test: it is left out of
        // the per-second counts, which tests compare with the quota
        boolean probe = ctx.path().endsWith("/" + PROBE_LANE);
        if (ctx.statusCode() == 200) {
          self[0].accepted.incrementAndGet();
          if (!probe) {
            self[0].acceptedPerSecond.incrementAndGet(second);
          }
        } else if (ctx.statusCode() == 429) {
          self[0].rejected.incrementAndGet();
          if (!probe) {
            self[0].rejectedPerSecond.incrementAndGet(second);
          }
        }
      });
    });
    IngestServer server = new IngestServer(javalin);
    self[0] = server;
    javalin.start("127.0.0.1", 0);
    return server;
  }

  int second() {
    return (int) Math.min(SECONDS - 1, (System.nanoTime() - startNanos) / 1_000_000_000L);
  }

  URI uri(String lane, String id) {
    return URI.create("http://127.0.0.1:" + app.port() + "/ingest/" + lane + "?id=" + id);
  }

  /**
   * Requests per second this machine carries right now: {@code workers} connections as fast as they
   * go for {@code time} on the lane {@code lane} (give it a limit nobody reaches). Also warms JIT and
   * connections. The tests check time and rate targets only when the machine can carry them.
   */
  double capacity(java.net.http.HttpClient http, String lane, java.time.Duration time)
      throws Exception {
    flood(
        http, lane, time.dividedBy(2)); // the first connections and a cold JIT would understate it
    return flood(http, lane, time);
  }

  private double flood(java.net.http.HttpClient http, String lane, java.time.Duration time)
      throws Exception {
    NaiveIngest flood = new NaiveIngest();
    long start = System.nanoTime();
    long end = start + time.toNanos();
    flood
        .run(
            http,
            Integer.MAX_VALUE,
            64,
            i -> System.nanoTime() - end < 0 ? uri(lane, "probe-" + i) : null)
        .get(60, java.util.concurrent.TimeUnit.SECONDS);
    return flood.sends.get() / ((System.nanoTime() - start) / 1e9);
  }

  static String load() {
    return String.format(
        java.util.Locale.ROOT,
        "%.1f",
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  long duplicates() {
    return acceptedById.entrySet().stream()
        .filter(e -> !e.getKey().startsWith("probe-"))
        .mapToLong(e -> e.getValue().get() - 1)
        .filter(n -> n > 0)
        .sum();
  }

  @Override
  public void close() {
    app.stop();
  }
}
