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
 * What Sluice costs a light request: the same trivial endpoint on two services, Sluice off and on,
 * driven closed-loop as fast as a few workers can (the one place this tool is closed-loop: the
 * question is throughput, not latency under a given load). The two run in alternating rounds, after
 * a warm-up round each, so a neighbour's build slows both alike.
 *
 * <p>The endpoint is {@code GET /api/history/{id}}, which the default rules limit per account; each
 * request names one of many accounts so no rule rejects, and the plugin still evaluates the rule.
 */
final class OverheadRun {

  static final int WORKERS = 8;
  static final int ACCOUNTS = 10_000;

  /**
   * One side's totals over its rounds.
   *
   * @param requestsPerSecond completed requests per second of measured time
   * @param latencyMillis per-request latency
   * @param statuses responses by status
   */
  record Side(double requestsPerSecond, Percentiles latencyMillis, Map<String, Long> statuses) {}

  /**
   * @param endpoint what was called
   * @param workers concurrent closed-loop workers
   * @param rounds measured rounds per side
   * @param secondsPerRound length of a round
   * @param off Sluice disabled
   * @param on Sluice enabled
   * @param throughputRatio on / off
   */
  record Result(
      String endpoint, int workers, int rounds, double secondsPerRound, Side off, Side on,
      double throughputRatio) {}

  private OverheadRun() {}

  static Result run(URI off, URI on, int rounds, Duration round) throws InterruptedException {
    HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    Tally offTally = new Tally();
    Tally onTally = new Tally();
    // warm-up, discarded: the JIT of both services and of this client
    Duration warmUp = round.compareTo(Duration.ofSeconds(3)) > 0 ? round : Duration.ofSeconds(3);
    drive(client, off, warmUp, new Tally());
    drive(client, on, warmUp, new Tally());
    for (int r = 0; r < rounds; r++) {
      // alternate who goes first, so a trend in the machine's load favours neither
      if (r % 2 == 0) {
        drive(client, off, round, offTally);
        drive(client, on, round, onTally);
      } else {
        drive(client, on, round, onTally);
        drive(client, off, round, offTally);
      }
    }
    double seconds = rounds * round.toMillis() / 1000.0;
    Side offSide = offTally.side(seconds);
    Side onSide = onTally.side(seconds);
    return new Result(
        "GET /api/history/{id}", WORKERS, rounds, round.toMillis() / 1000.0, offSide, onSide,
        onSide.requestsPerSecond() / offSide.requestsPerSecond());
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
                      HttpRequest.newBuilder(base.resolve("/api/history/" + i))
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

    Side side(double seconds) {
      Map<String, Long> counts = new TreeMap<>();
      statuses.forEach((k, v) -> counts.put(k, v.get()));
      long ok = counts.getOrDefault("200", 0L);
      return new Side(ok / seconds, Percentiles.of(micros, 1000), counts);
    }
  }
}
