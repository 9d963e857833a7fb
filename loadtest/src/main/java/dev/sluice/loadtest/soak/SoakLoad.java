package dev.sluice.loadtest.soak;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The soak's steady mixed load, spread over the nodes in turn:
 *
 * <ul>
 *   <li>history lookups ({@value #HISTORY_PER_SECOND}/s) from {@value #ACCOUNTS} accounts, a fifth
 *       of them from one hot account that goes beyond the global per-account rule (429s);
 *   <li>transcode jobs ({@value #JOBS_PER_SECOND}/s, 20 ms of CPU after a wait of up to 400 ms)
 *       under the global concurrency limiter, every tenth round four at once (queued and rejected
 *       jobs), and one job in ten from a client that hangs up after 100 ms.
 * </ul>
 *
 * Every answer is counted by kind and status.
 */
final class SoakLoad implements AutoCloseable {

  static final int ACCOUNTS = 1_000;
  static final int HISTORY_PER_SECOND = 50;
  static final int JOBS_PER_SECOND = 5;

  private final List<URI> nodes;
  private final HttpClient http;
  private final Random random;
  private final ScheduledExecutorService ticks = Executors.newScheduledThreadPool(1, r -> {
    Thread thread = new Thread(r, "soak-load");
    thread.setDaemon(true);
    return thread;
  });
  private final ConcurrentMap<String, LongAdder> answers = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger next = new AtomicInteger();
  private long round;

  SoakLoad(List<URI> nodes, HttpClient http, long seed) {
    this.nodes = nodes;
    this.http = http;
    this.random = new Random(seed);
  }

  // load-test tool: a periodic task that throws stops, which shows as missing samples in the report
  @SuppressWarnings("FutureReturnValueIgnored")
  void start() {
    ticks.scheduleAtFixedRate(
        this::history, 0, 1_000_000 / HISTORY_PER_SECOND, TimeUnit.MICROSECONDS);
    ticks.scheduleAtFixedRate(this::jobs, 0, 1_000 / JOBS_PER_SECOND, TimeUnit.MILLISECONDS);
  }

  /** Stops sending; requests under way still end (see {@link #open()}). */
  void stop() {
    ticks.shutdown();
  }

  /** Requests sent and not answered yet. */
  int open() {
    return open.get();
  }

  /** Answers by kind and status, e.g. {@code history 429}, {@code transcode hung up}. */
  Map<String, Long> answers() {
    Map<String, Long> counts = new TreeMap<>();
    answers.forEach((kind, n) -> counts.put(kind, n.sum()));
    return counts;
  }

  private URI node() {
    return nodes.get(Math.floorMod(next.getAndIncrement(), nodes.size()));
  }

  private void history() {
    String account = random.nextInt(5) == 0 ? "hot" : "account-" + random.nextInt(ACCOUNTS);
    send(
        "history",
        HttpRequest.newBuilder(node().resolve("/api/history/" + random.nextInt(100)))
            .header("X-Account-Id", account)
            .timeout(Duration.ofSeconds(10))
            .GET()
            .build());
  }

  private void jobs() {
    int jobs = round++ % 10 == 9 ? 4 : 1;
    for (int i = 0; i < jobs; i++) {
      boolean hangsUp = random.nextInt(10) == 0;
      URI uri = node().resolve("/api/transcode?cpuMillis=20&waitMillis=" + random.nextInt(400));
      send(
          hangsUp ? "transcode (hangs up)" : "transcode",
          HttpRequest.newBuilder(uri)
              .header("X-Host-Id", "host-" + random.nextInt(32))
              .timeout(hangsUp ? Duration.ofMillis(100) : Duration.ofSeconds(30))
              .POST(HttpRequest.BodyPublishers.noBody())
              .build());
    }
  }

  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void send(String kind, HttpRequest request) {
    open.incrementAndGet();
    http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((response, e) -> {
      open.decrementAndGet();
      String outcome = response != null
          ? Integer.toString(response.statusCode())
          : e instanceof HttpTimeoutException || e.getCause() instanceof HttpTimeoutException
              ? "hung up"
              : "connection error";
      answers.computeIfAbsent(kind + " " + outcome, k -> new LongAdder()).increment();
    });
  }

  @Override
  public void close() {
    ticks.shutdownNow();
  }
}
