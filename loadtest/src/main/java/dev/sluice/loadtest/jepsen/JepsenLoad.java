package dev.sluice.loadtest.jepsen;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.jepsen.JepsenCheck.Answer;
import dev.sluice.testing.ConcurrencyHistory.Job;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * The jepsen run's traffic, the same on each node, and its record. Per node: each hot account asks
 * the rate-ruled history lookup every {@value #HOT_EVERY_MILLIS} ms (together four times the
 * rule), the calm account every {@value #CALM_EVERY_MILLIS} ms (under it), and a transcode job
 * ({@value #JOB_WAIT_MILLIS} ms of storage wait) is sent every {@value #JOB_EVERY_MILLIS} ms under
 * the global concurrency limit.
 *
 * <p>Every answer is recorded with the times it was sent and answered on this JVM's {@code
 * nanoTime}, from the run's origin: 200 as allowed, 429 as refused; anything else (a node
 * restarting, a paused node past the client's timeout) is counted but is no decision. A job's
 * record is the client's view, as the demo exposes no start or end times: a 200 carries the
 * server-measured {@code queuedMillis} and {@code serviceMillis}, so the job certainly ran from
 * its latest possible start (the answer less the service time) to its earliest possible end (the
 * send plus queue and service time); overlaps are counted over those spans only, so a slow answer
 * never makes two jobs look concurrent.
 */
final class JepsenLoad implements AutoCloseable {

  static final List<String> HOT = List.of("hot-1", "hot-2");
  static final String CALM = "calm";
  static final long HOT_EVERY_MILLIS = 100;
  static final long CALM_EVERY_MILLIS = 1_000;
  static final long JOB_EVERY_MILLIS = 100;
  static final int JOB_WAIT_MILLIS = 200;
  static final int JOB_CPU_MILLIS = 5;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final List<URI> nodes;
  private final HttpClient http;
  private final long origin;
  private final ScheduledExecutorService ticks = Executors.newScheduledThreadPool(1, r -> {
    Thread thread = new Thread(r, "jepsen-load");
    thread.setDaemon(true);
    return thread;
  });
  private final ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<Job> jobs = new ConcurrentLinkedQueue<>();
  private final ConcurrentMap<String, LongAdder> outcomes = new ConcurrentHashMap<>();
  private final AtomicInteger open = new AtomicInteger();
  private final AtomicInteger lookup = new AtomicInteger();

  JepsenLoad(List<URI> nodes, HttpClient http, long origin) {
    this.nodes = List.copyOf(nodes);
    this.http = http;
    this.origin = origin;
  }

  // load-test tool: a periodic task that throws stops, which shows as missing answers
  @SuppressWarnings("FutureReturnValueIgnored")
  void start() {
    for (int n = 0; n < nodes.size(); n++) {
      int node = n;
      for (String account : HOT) {
        ticks.scheduleAtFixedRate(
            () -> history(node, account), 0, HOT_EVERY_MILLIS, TimeUnit.MILLISECONDS);
      }
      ticks.scheduleAtFixedRate(
          () -> history(node, CALM), 0, CALM_EVERY_MILLIS, TimeUnit.MILLISECONDS);
      ticks.scheduleAtFixedRate(() -> job(node), 0, JOB_EVERY_MILLIS, TimeUnit.MILLISECONDS);
    }
  }

  /** Stops sending; requests under way still end (see {@link #open()}). */
  void stop() {
    ticks.shutdown();
  }

  int open() {
    return open.get();
  }

  List<Answer> answers() {
    return List.copyOf(answers);
  }

  List<Job> jobs() {
    return List.copyOf(jobs);
  }

  /** Answers by kind and outcome, e.g. {@code history 429}, {@code transcode no answer}. */
  Map<String, Long> outcomes() {
    Map<String, Long> counts = new TreeMap<>();
    outcomes.forEach((kind, n) -> counts.put(kind, n.sum()));
    return counts;
  }

  private long now() {
    return System.nanoTime() - origin;
  }

  // the callback records the answer; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void history(int node, String account) {
    HttpRequest request = HttpRequest.newBuilder(
            nodes.get(node).resolve("/api/history/" + lookup.getAndIncrement() % 100))
        .header("X-Account-Id", account)
        .timeout(Duration.ofSeconds(15))
        .GET()
        .build();
    long asked = now();
    open.incrementAndGet();
    http.sendAsync(request, HttpResponse.BodyHandlers.discarding()).whenComplete((r, e) -> {
      long answered = now();
      open.decrementAndGet();
      int status = r == null ? -1 : r.statusCode();
      if (status == 200 || status == 429) {
        answers.add(new Answer(account, node + 1, asked, answered, status == 200));
      }
      count("history", status);
    });
  }

  // the callback records the job; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void job(int node) {
    HttpRequest request = HttpRequest.newBuilder(nodes
            .get(node)
            .resolve(
                "/api/transcode?cpuMillis=" + JOB_CPU_MILLIS + "&waitMillis=" + JOB_WAIT_MILLIS))
        .header("X-Host-Id", "host-" + (node + 1))
        .timeout(Duration.ofSeconds(15))
        .POST(HttpRequest.BodyPublishers.noBody())
        .build();
    long sent = now();
    open.incrementAndGet();
    http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).whenComplete((r, e) -> {
      long answered = now();
      open.decrementAndGet();
      int status = r == null ? -1 : r.statusCode();
      if (status == 200) {
        try {
          span(node + 1, sent, answered, JSON.readTree(r.body())).ifPresent(jobs::add);
        } catch (IOException unreadable) {
          status = -2;
        }
      }
      count("transcode", status);
    });
  }

  /**
   * The span a job certainly ran in, from the client's times and the server's own durations; empty
   * when the round trip was longer than the job, so that no span is certain.
   */
  static java.util.Optional<Job> span(int node, long sentNanos, long answeredNanos, JsonNode job) {
    long queued = (long) (job.path("queuedMillis").asDouble() * 1e6);
    long service = (long) (job.path("serviceMillis").asDouble() * 1e6);
    long latestStart = answeredNanos - service;
    long earliestEnd = sentNanos + queued + service;
    return earliestEnd > latestStart
        ? java.util.Optional.of(new Job("node " + node, latestStart, earliestEnd))
        : java.util.Optional.empty();
  }

  private void count(String kind, int status) {
    String outcome = switch (status) {
      case -1 -> "no answer";
      case -2 -> "unreadable answer";
      default -> Integer.toString(status);
    };
    outcomes.computeIfAbsent(kind + " " + outcome, k -> new LongAdder()).increment();
  }

  @Override
  public void close() {
    ticks.shutdownNow();
  }
}
