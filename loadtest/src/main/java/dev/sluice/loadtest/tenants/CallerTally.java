package dev.sluice.loadtest.tenants;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.engine.Arrival;
import dev.sluice.loadtest.engine.Reply;
import dev.sluice.loadtest.engine.Transport;
import dev.sluice.loadtest.sampling.Percentiles;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * Counts what each caller (by the value of one request header, e.g. {@code X-Host-Id}) got: its
 * requests, the status of every try, the reason a rejection named, and the queue wait of each job it
 * had served. It sits between the retrying client and the HTTP transport ({@link #wrap}), so it sees
 * every try, retries included, and changes none of them.
 */
final class CallerTally {

  /** The key of a request that does not carry the header. */
  static final String NONE = "(none)";

  private static final long MAX_MICROS = TimeUnit.HOURS.toMicros(1);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final String header;
  private final Map<String, Caller> callers = new ConcurrentHashMap<>();

  /** One caller's running counts; the maps are guarded by the object's monitor. */
  private static final class Caller {
    final Set<Arrival> requests = ConcurrentHashMap.newKeySet();
    final Map<String, Long> statuses = new TreeMap<>();
    final Map<String, Long> reasons = new TreeMap<>();
    final Histogram queuedMicros = new ConcurrentHistogram(MAX_MICROS, 3);
  }

  /**
   * What one caller, or several together, got.
   *
   * @param requests distinct requests (a retry is the same request)
   * @param served requests answered 200
   * @param statuses every try's status ({@code io-error} for a failed try)
   * @param reasons what rejections said, from their problem+json {@code reasons} (or {@code title})
   * @param queuedMillis the server-reported queue wait of the served jobs
   */
  record Counts(
      long requests,
      long served,
      Map<String, Long> statuses,
      Map<String, Long> reasons,
      Percentiles queuedMillis) {

    /** Tries answered with this status. */
    long tries(String status) {
      return statuses.getOrDefault(status, 0L);
    }

    /** Tries that were not answered 200. */
    long notServedTries() {
      return statuses.entrySet().stream()
          .filter(e -> !e.getKey().equals("200"))
          .mapToLong(Map.Entry::getValue)
          .sum();
    }
  }

  CallerTally(String header) {
    this.header = header;
  }

  /** The transport, counting each try into this tally. */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  Transport wrap(Transport inner) {
    return arrival -> {
      Caller caller =
          callers.computeIfAbsent(arrival.headers().getOrDefault(header, NONE), k -> new Caller());
      caller.requests.add(arrival);
      CompletableFuture<Reply> reply = inner.send(arrival);
      reply.whenComplete((r, error) -> record(caller, r, error));
      return reply;
    };
  }

  /** Every caller seen, by key. */
  Map<String, Counts> byCaller() {
    Map<String, Counts> all = new TreeMap<>();
    for (String key : callers.keySet()) {
      all.put(key, of(key::equals));
    }
    return all;
  }

  /** The callers whose key passes the filter, added up (their queue waits merged). */
  Counts of(Predicate<String> keys) {
    long requests = 0;
    Map<String, Long> statuses = new TreeMap<>();
    Map<String, Long> reasons = new TreeMap<>();
    Histogram queued = new Histogram(MAX_MICROS, 3);
    for (Map.Entry<String, Caller> e : callers.entrySet()) {
      if (!keys.test(e.getKey())) {
        continue;
      }
      Caller caller = e.getValue();
      requests += caller.requests.size();
      synchronized (caller) {
        caller.statuses.forEach((k, v) -> statuses.merge(k, v, Long::sum));
        caller.reasons.forEach((k, v) -> reasons.merge(k, v, Long::sum));
      }
      queued.add(caller.queuedMicros);
    }
    return new Counts(
        requests,
        statuses.getOrDefault("200", 0L),
        statuses,
        reasons,
        Percentiles.of(queued, 1000));
  }

  private static void record(Caller caller, Reply reply, Throwable error) {
    String status = error != null ? Accounting.IO_ERROR : Integer.toString(reply.status());
    String reason = null;
    long queuedMicros = -1;
    if (reply != null) {
      JsonNode body = json(reply.body());
      if (reply.status() == 200 && body.has("queuedMillis")) {
        queuedMicros = Math.round(body.get("queuedMillis").asDouble() * 1000);
      } else if (reply.status() != 200) {
        reason = body.path("reason").isTextual()
            ? body.get("reason").asText()
            : body.path("title").isTextual() ? body.get("title").asText() : "(no problem body)";
      }
    }
    synchronized (caller) {
      caller.statuses.merge(status, 1L, Long::sum);
      if (reason != null) {
        caller.reasons.merge(status + " " + reason, 1L, Long::sum);
      }
    }
    if (queuedMicros >= 0) {
      caller.queuedMicros.recordValue(Math.min(MAX_MICROS, queuedMicros));
    }
  }

  private static JsonNode json(String body) {
    try {
      JsonNode node = JSON.readTree(body == null ? "" : body);
      return node == null ? JSON.createObjectNode() : node;
    } catch (Exception notJson) {
      return JSON.createObjectNode();
    }
  }
}
