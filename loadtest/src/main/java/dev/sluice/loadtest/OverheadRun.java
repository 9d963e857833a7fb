package dev.sluice.loadtest;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What a limiter costs a light request: the same trivial endpoint on several services (no limiter,
 * Sluice, its peers; see {@link OverheadVariant}), driven closed-loop as fast as a few workers can
 * (the one place this tool is closed-loop: the question is throughput, not latency under a given
 * load). The services take turns in rounds, after a warm-up round each, and each round starts with a
 * different one, so a neighbour's build slows all alike.
 *
 * <p>Every request names one of many accounts ({@code X-Account-Id}), so a per-account rule is
 * evaluated and never rejects.
 */
final class OverheadRun {

  static final int WORKERS = 8;
  static final int ACCOUNTS = 10_000;

  /**
   * One service's totals over its rounds.
   *
   * @param variant which service
   * @param description what guards the endpoint
   * @param requestsPerSecond completed (200) requests per second of measured time
   * @param throughputRatio requestsPerSecond / the baseline's
   * @param latencyMillis per-request latency
   * @param statuses responses by status
   */
  record Side(String variant, String description, double requestsPerSecond, double throughputRatio,
      Percentiles latencyMillis, Map<String, Long> statuses) {}

  /**
   * @param endpoint what was called
   * @param workers concurrent closed-loop workers
   * @param rounds measured rounds per service
   * @param secondsPerRound length of a round
   * @param sides one per service, the baseline first
   */
  record Result(String endpoint, int workers, int rounds, double secondsPerRound, List<Side> sides) {}

  private OverheadRun() {}

  /**
   * @param variants the set-ups, the baseline first
   * @param uris where each runs, in the same order
   */
  static Result run(List<OverheadVariant> variants, List<URI> uris, int rounds, Duration round)
      throws InterruptedException {
    if (variants.size() != uris.size() || variants.isEmpty()) {
      throw new IllegalArgumentException(
          "one URI per variant: " + variants.size() + " variants, " + uris.size() + " URIs");
    }
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    List<Tally> tallies = new ArrayList<>();
    // warm-up, discarded: the JIT of every service and of this client
    Duration warmUp = round.compareTo(Duration.ofSeconds(3)) > 0 ? round : Duration.ofSeconds(3);
    for (URI uri : uris) {
      drive(client, uri, warmUp, new Tally());
      tallies.add(new Tally());
    }
    for (int r = 0; r < rounds; r++) {
      for (int v : order(r, uris.size())) {
        drive(client, uris.get(v), round, tallies.get(v));
      }
    }
    double seconds = rounds * round.toMillis() / 1000.0;
    List<Side> sides = new ArrayList<>();
    double baseline = tallies.get(0).ok() / seconds;
    for (int v = 0; v < variants.size(); v++) {
      sides.add(tallies.get(v).side(variants.get(v), seconds, baseline));
    }
    return new Result("GET " + OverheadVariant.ENDPOINT, WORKERS, rounds, round.toMillis() / 1000.0,
        sides);
  }

  /**
   * The order the services run in round {@code round}: rotated by one each round, so over
   * {@code count} rounds each goes first once and a trend in the machine's load favours none.
   */
  static List<Integer> order(int round, int count) {
    List<Integer> order = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      order.add((round + i) % count);
    }
    return order;
  }

  private static void drive(HttpClient client, URI base, Duration round, Tally tally)
      throws InterruptedException {
    long end = System.nanoTime() + round.toNanos();
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < WORKERS; w++) {
      int worker = w;
      Thread thread =
          new Thread(
              () -> {
                long i = worker;
                while (System.nanoTime() - end < 0) {
                  HttpRequest request =
                      HttpRequest.newBuilder(base.resolve(OverheadVariant.ENDPOINT))
                          .header("X-Account-Id", "account-" + (i % ACCOUNTS))
                          .timeout(Duration.ofSeconds(10))
                          .build();
                  long start = System.nanoTime();
                  String status;
                  try {
                    status = Integer.toString(client.send(request, HttpResponse.BodyHandlers.discarding()).statusCode());
                  } catch (Exception e) {
                    status = Accounting.IO_ERROR;
                  }
                  tally.record(status, System.nanoTime() - start);
                  i += WORKERS;
                }
              },
              "overhead-" + w);
      thread.start();
      workers.add(thread);
    }
    for (Thread worker : workers) {
      worker.join();
    }
  }

  private static final class Tally {
    final Histogram micros = new ConcurrentHistogram(60_000_000L, 3);
    final Map<String, AtomicLong> statuses = new ConcurrentHashMap<>();

    void record(String status, long nanos) {
      micros.recordValue(Math.min(60_000_000L, nanos / 1000));
      statuses.computeIfAbsent(status, s -> new AtomicLong()).incrementAndGet();
    }

    long ok() {
      AtomicLong ok = statuses.get("200");
      return ok == null ? 0 : ok.get();
    }

    Side side(OverheadVariant variant, double seconds, double baselinePerSecond) {
      Map<String, Long> counts = new TreeMap<>();
      statuses.forEach((k, v) -> counts.put(k, v.get()));
      double perSecond = ok() / seconds;
      return new Side(variant.name(), variant.description(), perSecond,
          baselinePerSecond > 0 ? perSecond / baselinePerSecond : 0, Percentiles.of(micros, 1000),
          counts);
    }
  }
}
