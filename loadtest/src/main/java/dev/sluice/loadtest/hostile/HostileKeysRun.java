package dev.sluice.loadtest.hostile;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
import dev.sluice.loadtest.sampling.LoadAverage;
import dev.sluice.loadtest.sampling.PrometheusText;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.HdrHistogram.Histogram;

/**
 * {@code --scenario hostile-keys}: one demo node (in memory, no Redis) with a rate rule by client
 * IP (the forwarded header trusted from loopback), one by account and one by an API key header,
 * each holding at most {@link #MAX_KEYS} keys. A probe of three known actors runs throughout
 * ({@link KnownProbe}); after a warm-up and a quiet phase, the control: {@link #CONTROL} requests
 * as fast over {@link #CONTROL_KEYS} keys of each kind, known after their first pass; then a flood
 * of {@link #FLOOD} requests, each with a new IP, account and key ({@link KeyFlood}), as fast as
 * the machine can send, capped by {@code --duration}. The node's heap is read after a forced GC before and after the
 * flood, and the rules' key tables every second from {@code /sluice}. {@link HostileKeysReport}
 * judges them.
 */
public final class HostileKeysRun implements Experiment {

  static final long FLOOD = 1_000_000;
  static final int MAX_KEYS = 100_000;
  /** Keys of each kind in the control flood: room beside the warm-up's and the probe's. */
  static final long CONTROL_KEYS = 90_000;

  static final long CONTROL = 4 * CONTROL_KEYS;
  // one permit a minute after a burst of 50: a one-off key's state (one permit taken) is not full
  // again for a minute, so at any flood rate above MAX_KEYS a minute the tables reach their bound
  // and evict; a known actor, drained, is held at its allowance, and one whose state were evicted
  // would get all 50 again
  static final int RULE_LIMIT = 60;
  static final String RULE_UNIT = "hour";
  static final double RULE_UNIT_SECONDS = 3600;
  static final int RULE_BURST = 50;
  static final Duration WARM_UP = Duration.ofSeconds(10);
  static final Duration QUIET = Duration.ofSeconds(20);
  static final Duration SETTLE = Duration.ofSeconds(3);
  static final List<String> RULES = List.of("per-ip", "per-account", "per-key");
  private static final ObjectMapper JSON = new ObjectMapper();

  @Override
  public String id() {
    return "hostile-keys";
  }

  /** The longest the flood may take; it ends sooner when every request is answered. */
  @Override
  public Duration defaultDuration() {
    return Duration.ofMinutes(5);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario hostile-keys starts its service itself (and forces GCs in it), so it needs"
              + " --embedded");
    }
  }

  static String rules() {
    StringBuilder yaml = new StringBuilder("rules:\n");
    String[] actors = {"ip", "account", "header:X-Api-Key"};
    for (int i = 0; i < RULES.size(); i++) {
      yaml.append("  - id: ")
          .append(RULES.get(i))
          .append('\n')
          .append("    resource: /api/history/*\n")
          .append("    actor: ")
          .append(actors[i])
          .append('\n')
          .append("    limit: ")
          .append(RULE_LIMIT)
          .append('\n')
          .append("    unit: ")
          .append(RULE_UNIT)
          .append('\n')
          .append("    burst: ")
          .append(RULE_BURST)
          .append('\n')
          .append("    algorithm: token-bucket\n");
    }
    return yaml.toString();
  }

  static List<String> properties(Path rules, List<String> given) {
    List<String> properties = new ArrayList<>(List.of(
        "sluice.rules.file=" + rules.toAbsolutePath(),
        "sluice.trusted-proxies=127.0.0.1/32",
        "sluice.rules.max-keys-per-rule=" + MAX_KEYS));
    properties.addAll(given); // a -D given later wins
    return properties;
  }

  @Override
  public Path run(Options options) throws Exception {
    Path out = options.out();
    Path rules = out.resolve("hostile-keys-rules.yaml");
    Files.writeString(rules, rules());
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    String loadBefore = LoadAverage.read();
    int threads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    HostileKeysReport.Figures figures;
    try (DemoProcess demo = DemoProcess.start(
        properties(rules, options.serverProperties()), out.resolve("server-hostile-keys.log"))) {
      Histogram warmUp = KnownProbe.histogram();
      Histogram quiet = KnownProbe.histogram();
      Histogram control = KnownProbe.histogram();
      Histogram flooded = KnownProbe.histogram();
      Map<String, Long> mostKeys = new LinkedHashMap<>();
      Map<String, Long> bound = new LinkedHashMap<>();
      long quietHeap;
      long floodNanos;
      long polls = 0;
      KeyFlood flood = new KeyFlood(demo.uri(), FLOOD);
      KnownProbe probe = new KnownProbe(demo.uri());
      try {
        warm(http, demo.uri());
        probe.start(warmUp);
        Thread.sleep(WARM_UP.toMillis()); // the probe's own schedule runs meanwhile
        demo.collectGarbage();
        quietHeap = heap(http, demo.uri());
        keys(http, demo.uri(), mostKeys, bound);
        System.out.printf(
            Locale.ROOT, "hostile-keys quiet heap after GC %.1f MiB%n", quietHeap / 1048576.0);
        probe.phase(quiet);
        Thread.sleep(QUIET.toMillis());
        control(demo.uri(), threads, options.duration(), probe, control);
        probe.phase(flooded);
        long start = System.nanoTime();
        long deadline = start + options.duration().toNanos();
        flood.start(threads);
        while (!flood.done() && System.nanoTime() - deadline < 0) {
          flood.await(Math.min(deadline, System.nanoTime() + 1_000_000_000L));
          keys(http, demo.uri(), mostKeys, bound);
          polls++;
          System.out.printf(
              Locale.ROOT,
              "hostile-keys %5.0f s: %,d sent, %,d answered; most keys %s%n",
              (System.nanoTime() - start) / 1e9,
              flood.sent(),
              flood.answered(),
              mostKeys);
        }
        floodNanos = System.nanoTime() - start;
        flood.close();
        // the probe's last answers come back at quiet speed: the allowance it is judged by counts
        // from its first request to its last as the node saw them
        probe.phase(KnownProbe.histogram());
        Thread.sleep(SETTLE.toMillis());
      } finally {
        probe.stop();
        flood.close();
      }
      keys(http, demo.uri(), mostKeys, bound);
      demo.collectGarbage();
      long heap = heap(http, demo.uri());
      Map<String, Long> keysAfter = new LinkedHashMap<>();
      keys(http, demo.uri(), keysAfter, new LinkedHashMap<>());
      List<HostileKeysReport.Known> known = new ArrayList<>();
      for (KnownProbe.Actor actor : KnownProbe.Actor.values()) {
        KnownProbe.Tally t = probe.tally(actor);
        known.add(new HostileKeysReport.Known(
            actor.rule,
            actor.value,
            t.allowed.get(),
            t.refused.get(),
            t.other.get(),
            (t.lastNanos - t.firstNanos) / 1e9));
      }
      figures = new HostileKeysReport.Figures(
          quietHeap,
          heap,
          bound,
          mostKeys,
          keysAfter,
          polls,
          flood.sent(),
          flood.answered(),
          flood.statuses(),
          flood.connectionErrors(),
          floodNanos,
          threads,
          KnownProbe.percentiles(quiet),
          KnownProbe.percentiles(control),
          KnownProbe.percentiles(flooded),
          known,
          loadBefore,
          LoadAverage.read(),
          Runtime.getRuntime().availableProcessors());
    }
    return Reporter.write(new HostileKeysReport(figures).report(), out);
  }

  /**
   * The control flood: {@link #CONTROL} requests over {@link #CONTROL_KEYS} keys, as fast as the
   * flood; the probe's latency goes to {@code into} once the first pass has made every key known.
   */
  private static void control(
      URI service, int threads, Duration cap, KnownProbe probe, Histogram into)
      throws InterruptedException {
    long deadline = System.nanoTime() + cap.toNanos();
    try (KeyFlood known = KeyFlood.ofKnown(service, CONTROL, CONTROL_KEYS)) {
      known.start(threads);
      boolean counting = false;
      while (!known.done() && System.nanoTime() - deadline < 0) {
        known.await(Math.min(deadline, System.nanoTime() + 100_000_000L));
        if (!counting && known.answered() >= CONTROL_KEYS) {
          probe.phase(into);
          counting = true;
        }
      }
      System.out.printf(
          Locale.ROOT,
          "hostile-keys control: %,d requests over %,d known keys answered%n",
          known.answered(),
          CONTROL_KEYS);
    }
  }

  /**
   * A few hundred requests of actors the probe never uses, so the probe's first request (whose
   * arrival starts its allowance) does not wait for the JIT.
   */
  private static void warm(HttpClient http, URI service) throws IOException, InterruptedException {
    for (int i = 0; i < 300; i++) {
      http.send(
          HttpRequest.newBuilder(service.resolve(KeyFlood.PATH.substring(1)))
              .header("X-Forwarded-For", "192.0.2." + (i % 250))
              .header("X-Account-Id", "warm-" + i)
              .header("X-Api-Key", "warm-" + i)
              .timeout(Duration.ofSeconds(30))
              .build(),
          HttpResponse.BodyHandlers.discarding());
    }
  }

  /** Heap used right now, from the node's {@code /metrics}. */
  private static long heap(HttpClient http, URI service) throws IOException, InterruptedException {
    return PrometheusText.heapUsedBytes(get(http, service, "metrics"));
  }

  /** Reads each local rule's keys and bound from {@code /sluice}, keeping the most seen. */
  private static void keys(
      HttpClient http, URI service, Map<String, Long> most, Map<String, Long> bound)
      throws IOException, InterruptedException {
    keys(JSON.readTree(get(http, service, "sluice")), most, bound);
  }

  /** Each local rule's keys and bound in a {@code /sluice} answer, keeping the most seen. */
  static void keys(JsonNode status, Map<String, Long> most, Map<String, Long> bound) {
    for (JsonNode rule : status.path("rules")) {
      String id = rule.path("id").asText();
      most.merge(id, rule.path("keys").asLong(-1), Math::max);
      bound.put(id, rule.path("maxKeys").asLong(-1));
    }
  }

  private static String get(HttpClient http, URI service, String path)
      throws IOException, InterruptedException {
    HttpResponse<String> response = http.send(
        HttpRequest.newBuilder(service.resolve(path))
            .timeout(Duration.ofSeconds(30))
            .build(),
        HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IOException("GET " + service.resolve(path) + " answered " + response.statusCode());
    }
    return response.body();
  }
}
