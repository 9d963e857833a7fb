package dev.sluice.loadtest.soak;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code --scenario soak}: two demo nodes on one Redis under a steady mixed load ({@link SoakLoad}:
 * a global per-account rate rule on the history lookups, a global concurrency limiter on the
 * transcode jobs) for {@code --duration} (default 15 minutes), read every {@value #SAMPLE_SECONDS}
 * s: each node's heap after a full GC and its threads, Redis's memory and keys, in-flight, queued
 * and leases. After the load, it waits (up to {@code --drain}) for in-flight, queued and leases to
 * be back at 0, and reports the trend of each quantity with a verdict ({@link SoakReport}).
 */
public final class SoakRun implements Experiment {

  static final int NODES = 2;
  static final long SAMPLE_SECONDS = 10;

  @Override
  public String id() {
    return "soak";
  }

  @Override
  public Duration defaultDuration() {
    return Duration.ofMinutes(15);
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario soak starts its two services and its Redis itself, so it needs --embedded");
    }
  }

  /** The properties of node {@code index}: both on {@code redisUri}, the limiter global. */
  static List<String> nodeProperties(List<String> given, String redisUri, Path rules) {
    return GlobalNodes.properties(
        redisUri,
        NODES,
        rules,
        List.of("max-concurrency=2", "max-queue=6", "queue-timeout=2s"),
        given);
  }

  @Override
  public Path run(Options options) throws Exception {
    Path out = options.out();
    Path rules = GlobalNodes.writeRules(out.resolve("soak-rules.yaml"));
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<DemoProcess> demos = new ArrayList<>();
    List<SoakSample> samples = new ArrayList<>();
    SoakReport report;
    try (SoakRedis redis = SoakRedis.start(out.resolve("redis.log"))) {
      List<String> properties = nodeProperties(options.serverProperties(), redis.uri(), rules);
      try {
        for (int i = 1; i <= NODES; i++) {
          demos.add(DemoProcess.start(properties, out.resolve("server-soak-" + i + ".log")));
        }
        List<SoakNode> nodes = demos.stream().map(d -> new SoakNode(d, http)).toList();
        List<URI> uris = nodes.stream().map(SoakNode::uri).toList();
        long start = System.nanoTime();
        long end = start + options.duration().toNanos();
        try (SoakLoad load = new SoakLoad(uris, http, options.seed())) {
          load.start();
          for (long due = start; due - end <= 0; due += SAMPLE_SECONDS * 1_000_000_000L) {
            sleepUntil(due);
            samples.add(sample(nodes, redis, start));
            System.out.printf(
                java.util.Locale.ROOT,
                "soak %s%n",
                SoakReport.line(samples.get(samples.size() - 1)));
          }
          load.stop();
          long drained = System.nanoTime() + options.drain().toNanos();
          SoakSample last = sample(nodes, redis, start);
          while ((load.open() > 0 || !last.idle()) && System.nanoTime() - drained < 0) {
            Thread.sleep(1_000); // waiting on other processes to wind down
            last = sample(nodes, redis, start);
          }
          report = new SoakReport(options.duration(), samples, last, load.answers());
        }
      } finally {
        demos.forEach(DemoProcess::close);
      }
    }
    return report.write(out);
  }

  private static SoakSample sample(List<SoakNode> nodes, SoakRedis redis, long start)
      throws Exception {
    double seconds = (System.nanoTime() - start) / 1e9;
    List<SoakSample.Node> readings = new ArrayList<>();
    for (SoakNode node : nodes) {
      readings.add(node.read());
    }
    return new SoakSample(seconds, readings, redis.usedMemory(), redis.keys());
  }

  private static void sleepUntil(long due) throws InterruptedException {
    long left = due - System.nanoTime();
    if (left > 0) {
      Thread.sleep(left / 1_000_000, (int) (left % 1_000_000)); // the sampling cadence
    }
  }
}
