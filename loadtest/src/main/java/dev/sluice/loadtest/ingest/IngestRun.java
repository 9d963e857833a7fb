package dev.sluice.loadtest.ingest;

import dev.sluice.client.ClientListener;
import dev.sluice.client.PacedClient;
import dev.sluice.client.PacedClientConfig;
import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.DemoProcess;
import dev.sluice.loadtest.report.Reporter;
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
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * {@code --scenario ingest}: the cloud rate-limiting pattern's case. 10,000 records go into a service
 * that takes 2,000 per second (the demo's {@code GET /api/ping} behind one Sluice rate rule, actor
 * all, token bucket), first by a naive client (64 connections, every rejected record sent again at
 * once), then by Sluice's {@link PacedClient} at 2,000/s, one second apart so the bucket is full for
 * both. A record is a request {@code /api/ping?record=N}: the demo has no ingest endpoint, and its
 * ping is the lightest thing it serves, so the service is never the bottleneck. {@code --rate R} sets
 * another limit (records = 5 x R, so the ideal stays 5 s), for a machine that cannot carry 2,000
 * requests a second.
 */
public final class IngestRun implements Experiment {

  static final int LIMIT_PER_SECOND = 2_000;
  static final int NAIVE_CONNECTIONS = 64;
  static final String ENDPOINT = "/api/ping";

  @Override
  public String id() {
    return "ingest";
  }

  @Override
  public void check(Options options) {
    if (!options.embedded()) {
      throw new IllegalArgumentException(
          "--scenario ingest starts its service itself, so it needs --embedded");
    }
  }

  /** The rate rule of the embedded service. */
  static Path writeRules(Path file, long limitPerSecond) throws java.io.IOException {
    Files.writeString(
        file,
        String.join(
            "\n",
            "rules:",
            "  - id: ingest",
            "    resource: " + ENDPOINT,
            "    method: GET",
            "    actor: all",
            "    limit: " + limitPerSecond,
            "    unit: second",
            "    algorithm: token-bucket",
            "    scope: local",
            ""));
    return file;
  }

  /**
   * Starts the demo with the ingest rule, runs both clients, writes {@code summary.json} and
   * {@code report.html}; returns the report.
   */
  @Override
  public Path run(Options options) throws Exception {
    long limit = Math.round(options.rate().orElse((double) LIMIT_PER_SECOND));
    int records = (int) Math.min(1_000_000, 5 * limit);
    List<String> properties = new ArrayList<>(options.serverProperties());
    properties.add("sluice.enabled=true");
    properties.add("sluice.rules.file="
        + writeRules(options.out().resolve("ingest-rules.yaml"), limit).toAbsolutePath());
    IngestClients result;
    try (DemoProcess demo =
        DemoProcess.start(properties, options.out().resolve("server-ingest.log"))) {
      result = compare(
          demo.uri(),
          HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build(),
          records,
          limit);
    }
    Path report = Reporter.write(IngestReport.of(result), options.out());
    result
        .clients()
        .forEach((name, c) -> System.out.printf(
            java.util.Locale.ROOT,
            "%s: %d records, %d accepted, %d sends, %d rejected, %.2f s (ideal %.1f s), load %.1f%n",
            name,
            c.records(),
            c.accepted(),
            c.sends(),
            c.rejected(),
            c.seconds(),
            result.idealSeconds(),
            result.load()));
    return report;
  }

  /** Both clients, one after the other, into the service's rule of {@code limit} per second. */
  static IngestClients compare(URI service, HttpClient http, int records, long limit)
      throws Exception {
    // JIT and connections warm on a path no rule limits, so neither client pays for them
    IngestCounts warm = new IngestCounts();
    naive(http, 2_000, i -> service.resolve("health"), warm).get(120, TimeUnit.SECONDS);

    Map<String, IngestClients.Client> clients = new LinkedHashMap<>();
    IngestCounts naive = new IngestCounts();
    naive(http, records, i -> record(service, "n" + i), naive).get(300, TimeUnit.SECONDS);
    clients.put("naive", naive.summary(records));
    Thread.sleep(
        1_500); // the bucket refills; a separate process would not know of the other either

    IngestCounts paced = new IngestCounts();
    paced(http, service, paced, records, limit);
    clients.put("paced", paced.summary(records));
    return new IngestClients(
        service.resolve(ENDPOINT).toString(),
        limit,
        (double) records / limit,
        java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage(),
        clients);
  }

  private static URI record(URI service, String id) {
    return service.resolve(ENDPOINT + "?record=" + id);
  }

  /** The naive client: each connection sends the next record, and a rejected one again at once. */
  static CompletableFuture<Void> naive(
      HttpClient http,
      int records,
      java.util.function.IntFunction<URI> target,
      IngestCounts counts) {
    AtomicInteger next = new AtomicInteger();
    List<CompletableFuture<Void>> connections = new ArrayList<>();
    for (int c = 0; c < NAIVE_CONNECTIONS; c++) {
      connections.add(nextRecord(http, records, next, target, counts));
    }
    return CompletableFuture.allOf(connections.toArray(CompletableFuture[]::new));
  }

  private static CompletableFuture<Void> nextRecord(
      HttpClient http,
      int records,
      AtomicInteger next,
      java.util.function.IntFunction<URI> target,
      IngestCounts counts) {
    int record = next.getAndIncrement();
    if (record >= records) {
      return CompletableFuture.completedFuture(null);
    }
    return sendUntilAccepted(http, target.apply(record), counts)
        .thenCompose(done -> nextRecord(http, records, next, target, counts));
  }

  private static CompletableFuture<Void> sendUntilAccepted(
      HttpClient http, URI uri, IngestCounts counts) {
    counts.sent();
    return http.sendAsync(
            HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.discarding())
        .thenCompose(response -> {
          counts.answered(response.statusCode());
          if (response.statusCode() == 429) {
            counts.retries.incrementAndGet();
            return sendUntilAccepted(http, uri, counts);
          }
          return CompletableFuture.completedFuture(null);
        });
  }

  /** Sluice's paced client, as a user would set it up for a service of 2,000 records/s. */
  private static void paced(
      HttpClient http, URI service, IngestCounts counts, int records, long limit) throws Exception {
    PacedClientConfig config = PacedClientConfig.custom()
        .pace(limit, Duration.ofSeconds(1))
        .maxConcurrency(NAIVE_CONNECTIONS)
        .maxQueue(records)
        .build();
    try (PacedClient client = PacedClient.builder(http)
        .config(config)
        .listener(new ClientListener() {
          @Override
          public void onSend() {
            counts.sent();
          }

          @Override
          public void onThrottled(int status) {
            counts.rejectedOne();
          }

          @Override
          public void onRetry() {
            counts.retries.incrementAndGet();
          }
        })
        .build()) {
      List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        sent.add(client
            .submit(
                HttpRequest.newBuilder(record(service, "p" + i)).build(),
                HttpResponse.BodyHandlers.discarding())
            .whenComplete((response, error) -> {
              if (response != null && response.statusCode() / 100 == 2) {
                counts.acceptedOne();
              }
            }));
      }
      CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(300, TimeUnit.SECONDS);
    }
  }
}
