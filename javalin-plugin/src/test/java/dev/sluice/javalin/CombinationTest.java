package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.SluiceProperties;
import dev.sluice.redis.RedisServer;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Features together, as users combine them: every pair of values of scope x limit x queue x
 * reject-early x live page x change at runtime x standing-queue control x request deadlines is in
 * at least one combination (a pairwise covering
 * set, built below). For each, over HTTP: the behaviour (admit, queue, 429 queue full or predicted
 * wait, 504) follows the configuration in force after the change, and {@code /sluice}, the live
 * page's data and the metrics say the same. Virtual time drives timeouts and service times; CPU
 * limits read an injected signal held at their target, not the machine's.
 */
class CombinationTest {

  enum Scope {
    LOCAL,
    GLOBAL
  }

  enum Limit {
    FIXED,
    CPU,
    LATENCY
  }

  enum Queue {
    FIFO,
    FAIR,
    CLASSES
  }

  enum Change {
    NONE,
    MAX_CONCURRENCY,
    STRATEGY,
    QUEUE
  }

  record Combination(
      Scope scope,
      Limit limit,
      Queue queue,
      boolean early,
      boolean page,
      Change change,
      boolean standing,
      boolean deadline) {
    Object[] values() {
      return new Object[] {scope, limit, queue, early, page, change, standing, deadline};
    }
  }

  private static final int MAX_QUEUE = 6;
  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  /** A request's own deadline, when the combination sends one: half the queue timeout. */
  private static final Duration DEADLINE = Duration.ofSeconds(1);

  private static final Duration STANDING_TARGET = Duration.ofMillis(500);
  private static final AtomicInteger NAMES = new AtomicInteger();
  private static RedisServer redis;

  @TempDir
  Path dir;

  @BeforeAll
  static void startRedis() {
    redis = RedisServer.start();
  }

  @AfterAll
  static void stopRedis() {
    redis.close();
  }

  /** Greedy pairwise cover of the six factors: each pair of values in some combination. */
  static Stream<Combination> pairwise() {
    List<Combination> all = new ArrayList<>();
    for (Scope s : Scope.values()) {
      for (Limit l : Limit.values()) {
        for (Queue q : Queue.values()) {
          for (boolean e : new boolean[] {false, true}) {
            for (boolean p : new boolean[] {false, true}) {
              for (Change c : Change.values()) {
                for (boolean st : new boolean[] {false, true}) {
                  for (boolean d : new boolean[] {false, true}) {
                    all.add(new Combination(s, l, q, e, p, c, st, d));
                  }
                }
              }
            }
          }
        }
      }
    }
    java.util.Set<String> uncovered = new java.util.HashSet<>();
    all.forEach(c -> uncovered.addAll(pairs(c)));
    List<Combination> chosen = new ArrayList<>();
    while (!uncovered.isEmpty()) {
      Combination best = null;
      int bestCount = -1;
      for (Combination c : all) {
        int n = (int) pairs(c).stream().filter(uncovered::contains).count();
        if (n > bestCount) {
          best = c;
          bestCount = n;
        }
      }
      chosen.add(best);
      uncovered.removeAll(pairs(best));
    }
    return chosen.stream();
  }

  private static List<String> pairs(Combination c) {
    Object[] v = c.values();
    List<String> out = new ArrayList<>();
    for (int i = 0; i < v.length; i++) {
      for (int j = i + 1; j < v.length; j++) {
        out.add(i + "=" + v[i] + "," + j + "=" + v[j]);
      }
    }
    return out;
  }

  /** The limiter's properties for one side of the change. */
  private static Map<String, String> limiter(String name, Combination c, boolean after) {
    String p = "sluice.limiters." + name + ".";
    Map<String, String> m = new LinkedHashMap<>();
    m.put(p + "path", "/api/work");
    m.put(p + "scope", c.scope() == Scope.GLOBAL ? "global" : "local");
    int max = after && c.change() == Change.MAX_CONCURRENCY ? 3 : 2;
    m.put(p + "max-concurrency", Integer.toString(max));
    m.put(p + "max-queue", Integer.toString(MAX_QUEUE));
    m.put(p + "queue-timeout", TIMEOUT.toMillis() + "ms");
    m.put(p + "reject-early", Boolean.toString(c.early()));
    if (c.standing()) {
      m.put(p + "queue-delay-target", STANDING_TARGET.toMillis() + "ms");
    }
    if (c.deadline()) {
      m.put(p + "deadline-header", "X-Deadline-Ms");
    }
    Limit limit = after && c.change() == Change.STRATEGY
        ? (c.limit() == Limit.FIXED ? Limit.CPU : Limit.FIXED)
        : c.limit();
    m.put(p + "limit", limit.name().toLowerCase(Locale.ROOT));
    m.put(p + "min-concurrency", Integer.toString(max)); // adaptive limits pinned: a known limit
    m.put(p + "target-cpu", "0.5");
    Queue queue = after && c.change() == Change.QUEUE
        ? (c.queue() == Queue.FIFO ? Queue.CLASSES : Queue.FIFO)
        : c.queue();
    m.put(p + "queue", queue == Queue.FIFO ? "fifo" : "fair");
    m.put(p + "queue-key", "header:X-Tenant");
    if (queue == Queue.CLASSES) {
      m.put(p + "priority-header", "X-Priority");
    }
    return m;
  }

  private void write(Path file, Map<String, String> props) throws IOException {
    StringBuilder sb = new StringBuilder();
    props.forEach((k, v) -> sb.append(k).append('=').append(v).append('\n'));
    Files.writeString(file, sb.toString());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("pairwise")
  void behaviourStatusPageAndMetricsFollowTheConfigurationInForce(Combination c) throws Exception {
    String name = "work" + NAMES.incrementAndGet(); // own keys in the shared Redis
    VirtualTime time = new VirtualTime();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    Path file = dir.resolve("sluice.properties");
    Map<String, String> before = new LinkedHashMap<>(limiter(name, c, false));
    if (c.scope() == Scope.GLOBAL) {
      before.put("sluice.redis.uri", redis.uri().toString());
    }
    if (c.page()) {
      before.put("sluice.dashboard.path", "/sluice/dashboard");
    }
    write(file, before);
    CompletableFuture<Void> gate = new CompletableFuture<>();
    AtomicInteger serviceMillis = new AtomicInteger();
    CpuSignal atTarget = () -> new CpuSignal.Reading(time.nanoTime() * 0.5, time.nanoTime());
    try (TestServer server = TestServer.start(
        cfg -> cfg.properties(SluiceProperties.builder()
                .file(file)
                .env(Map.of())
                .system(Map.of())
                .build())
            .meterRegistry(registry)
            .clock(time)
            .scheduler(time)
            .cpuSignal(atTarget),
        (app, plugin) -> app.routes.get("/api/work", ctx -> {
          int ms = serviceMillis.get();
          if (ms > 0) {
            time.advance(Duration.ofMillis(ms)); // the job's service time, in virtual time
          } else {
            ctx.future(() -> gate.thenApply(v -> "done")); // held until the test lets it go
          }
        }))) {
      // teach the limiter a service time of 1 s: reject-early predicts from it
      serviceMillis.set(1000);
      for (int i = 0; i < 40; i++) {
        assertThat(server.get("/api/work").statusCode()).isEqualTo(200);
      }
      serviceMillis.set(0);

      if (c.change() != Change.NONE) {
        Map<String, String> after = new LinkedHashMap<>(before);
        after.putAll(limiter(name, c, true));
        if (!after.equals(before)) {
          write(file, after);
          server.plugin.reload();
        }
      }
      Map<String, String> inForce = limiter(name, c, c.change() != Change.NONE);
      String p = "sluice.limiters." + name + ".";
      int limit = Integer.parseInt(inForce.get(p + "max-concurrency"));
      String kind = inForce.get(p + "limit");
      String queueKind = inForce.get(p + "queue");
      ConcurrencySnapshot snap = server.plugin.limiter(name).orElseThrow().snapshot();
      assertThat(snap.limit()).isEqualTo(limit);
      assertThat(snap.limitState().strategy()).isEqualTo(kind);

      // admit: `limit` requests run at once
      List<CompletableFuture<HttpResponse<String>>> running = new ArrayList<>();
      for (int i = 0; i < limit; i++) {
        running.add(server.getAsync("/api/work", "X-Tenant", "t" + i));
      }
      await().until(() -> server.plugin.limiter(name).orElseThrow().snapshot().inFlight() == limit);

      // queue: up to max-queue, or up to where the predicted wait passes the timeout (2 s at 1 s
      // a job over `limit` permits: 2 x limit waiters), then 429 at once. One tenant, so a fair
      // queue's prediction (a newcomer's place in the round) is the FIFO one

      // with a deadline of 1 s the waiters that fit are 1 x limit
      String[] headers = c.deadline()
          ? new String[] {"X-Tenant", "q", "X-Deadline-Ms", Long.toString(DEADLINE.toMillis())}
          : new String[] {"X-Tenant", "q"};
      int seconds = (int) (c.deadline() ? DEADLINE : TIMEOUT).toSeconds();
      int queueable = c.early() ? Math.min(MAX_QUEUE, seconds * limit) : MAX_QUEUE;
      List<CompletableFuture<HttpResponse<String>>> queued = new ArrayList<>();
      for (int i = 0; i < queueable; i++) {
        queued.add(server.getAsync("/api/work", headers));
        int n = i + 1;
        await().until(() -> server.plugin.limiter(name).orElseThrow().snapshot().queued() == n);
      }
      HttpResponse<String> refused = server.get("/api/work", headers);
      assertThat(refused.statusCode()).isEqualTo(429);
      assertThat(refused.headers().firstValue("Retry-After")).isPresent();
      boolean predicted = c.early() && seconds * limit < MAX_QUEUE;
      assertThat(refused.body()).contains(predicted ? "predicted_wait" : "queue_full");

      // past the timeout the waiters are answered: 504 (at the queue timeout, or at their own
      // deadline), 429 predicted_wait when reject-early finds at a re-check that the deadline
      // became unreachable, or 429 standing_queue when the queue stood past its delay target
      time.advance(TIMEOUT.plusMillis(100));
      int timedOut = 0;
      int predictedLater = 0;
      int standingLater = 0;
      for (CompletableFuture<HttpResponse<String>> q : queued) {
        HttpResponse<String> r = q.join();
        if (r.statusCode() == 504) {
          timedOut++;
        } else {
          assertThat(r.statusCode()).isEqualTo(429);
          if (r.body().contains("standing_queue")) {
            assertThat(c.standing())
                .as("shed from a standing queue only with a target")
                .isTrue();
            standingLater++;
          } else {
            assertThat(c.early())
                .as("a 429 while queued only with reject-early")
                .isTrue();
            assertThat(r.body()).contains("predicted_wait");
            predictedLater++;
          }
        }
      }
      if (c.standing()) {
        // the queue stood 500 ms after the first waiter joined, before any 1 s or 2 s timeout:
        // everyone was shed then but the two rounds of work a standing queue keeps (2 x limit),
        // which wait for a permit until their timeout
        assertThat(timedOut).isLessThanOrEqualTo(2 * limit);
        assertThat(standingLater).isGreaterThanOrEqualTo(queueable - 2 * limit);
      }
      gate.complete(null);
      for (CompletableFuture<HttpResponse<String>> r : running) {
        assertThat(r.join().statusCode()).isEqualTo(200);
      }

      // /sluice: the configuration in force and the counts
      String status = server.plugin.statusJson();
      assertThat(status)
          .contains("\"name\":\"" + name + "\"")
          .contains("\"limitKind\":\"" + kind + "\"")
          .contains("\"queueKind\":\"" + queueKind + "\"")
          .contains("\"maxConcurrency\":" + limit)
          .contains("\"maxQueue\":" + MAX_QUEUE)
          .contains("\"queueTimeoutMillis\":" + TIMEOUT.toMillis())
          .contains("\"rejectEarly\":" + c.early())
          .contains("\"queueTimeout\":" + timedOut)
          .contains("\"late\":" + (predictedLater + standingLater));
      if (kind.equals("cpu")) {
        assertThat(status).contains("\"cpu\":{\"target\":0.5");
      }
      // the live page's data is the same status
      if (c.page()) {
        HttpResponse<String> data = server.get("/sluice/dashboard/data");
        assertThat(data.statusCode()).isEqualTo(200);
        assertThat(data.body())
            .contains("\"limitKind\":\"" + kind + "\"")
            .contains("\"maxConcurrency\":" + limit)
            .contains("\"queueTimeout\":" + timedOut);
      }
      // metrics: the same rejections, with or without the page
      assertThat(count(registry, name, predicted ? "predicted_wait" : "queue_full"))
          .isEqualTo(1 + (predicted ? predictedLater : 0));
      assertThat(count(registry, name, "queue_timeout")).isEqualTo(timedOut);
      assertThat(count(registry, name, "standing_queue")).isEqualTo(standingLater);
      assertThat(registry
              .get("sluice.concurrency.limit")
              .tag("limiter", name)
              .gauge()
              .value())
          .isEqualTo(limit);
    }
  }

  private static double count(SimpleMeterRegistry registry, String limiter, String reason) {
    Counter counter = registry
        .find("sluice.concurrency.requests")
        .tag("limiter", limiter)
        .tag("outcome", "rejected")
        .tag("reason", reason)
        .counter();
    return counter == null ? 0 : counter.count();
  }
}
