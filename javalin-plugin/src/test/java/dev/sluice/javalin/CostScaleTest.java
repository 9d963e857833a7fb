package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.config.QueueSettings;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;

/**
 * A cost in the caller's own unit ({@code cost=query:cpuMillis}) beside an adaptive CPU limit:
 * {@code cost-scale} turns it into units of the limit, and a cost that can never fit under the
 * ceiling ({@code max-concurrency}) is reported at once, not found from 504s. In virtual time, on a
 * simulated 32-core machine where each running job keeps one core busy.
 */
class CostScaleTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  private final VirtualTime time = new VirtualTime();
  private final CompletableFuture<String> gate = new CompletableFuture<>();
  private final ConcurrentLinkedQueue<Integer> running = new ConcurrentLinkedQueue<>();
  private final AtomicInteger busyCores = new AtomicInteger();

  @RegisterExtension
  final LogCapture log = new LogCapture(SluicePlugin.class);

  /** 32 cores, one busy per running job: integrated over virtual time, as a real signal. */
  private final CpuSignal machine = new CpuSignal() {
    private final long origin = time.nanoTime();
    private double busy;
    private long last = origin;

    @Override
    public synchronized Reading read() {
      long now = time.nanoTime();
      busy += Math.min(1.0, busyCores.get() / 32.0) * (now - last);
      last = now;
      return new Reading(busy, now - origin);
    }
  };

  /** Lets every held job finish (before the server stops, so that each gets its answer). */
  private void finish(List<CompletableFuture<HttpResponse<String>>> sent) {
    gate.complete("done");
    sent.forEach(CompletableFuture::join);
  }

  private TestServer start(Map<String, String> extra) {
    Map<String, String> props = new HashMap<>(Map.of(
        "sluice.limiters.transcode.path", "/api/transcode",
        "sluice.limiters.transcode.limit", "cpu",
        "sluice.limiters.transcode.target-cpu", "0.7",
        "sluice.limiters.transcode.max-concurrency", "16",
        "sluice.limiters.transcode.max-queue", "40",
        "sluice.limiters.transcode.cost", "query:cpuMillis"));
    props.putAll(extra);
    return TestServer.start(
        cfg -> cfg.properties(
                SluiceProperties.builder().env(Map.of()).system(props).build())
            .clock(time)
            .scheduler(time)
            .cpuSignal(machine),
        (app, plugin) -> app.routes.get("/api/transcode", ctx -> {
          running.add(Integer.parseInt(ctx.queryParam("cpuMillis")));
          busyCores.incrementAndGet();
          ctx.future(() -> gate);
        }));
  }

  /**
   * One 800 ms job, then twenty of 50 ms, all held until the end, the limit given 5 s to grow. (A
   * costly job behind others waits, ahead of everyone, until its units are free: held jobs never
   * free them, so it goes first here.)
   */
  private List<CompletableFuture<HttpResponse<String>>> mixedLoad(TestServer server) {
    List<CompletableFuture<HttpResponse<String>>> sent = new ArrayList<>();
    sent.add(server.getAsync("/api/transcode?cpuMillis=800"));
    await().until(() -> running.contains(800));
    for (int i = 0; i < 20; i++) {
      sent.add(server.getAsync("/api/transcode?cpuMillis=50"));
    }
    await().until(() -> {
      var s = server.plugin.limiter("transcode").orElseThrow().snapshot();
      return s.queued() + running.size() == 21;
    });
    var limiter = server.plugin.limiter("transcode").orElseThrow();
    for (int tick = 0; tick < 50; tick++) {
      time.advance(Duration.ofMillis(100)); // the controller's ticks
      // each job admitted is running (its core busy) before the controller looks again
      await()
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(2))
          .until(() -> running.size() == limiter.snapshot().admitted());
    }
    return sent;
  }

  @Test
  void withACostScaleTheCpuLimitRunsSeveralSmallJobsBesideALargeOne() throws Exception {
    try (TestServer server =
        start(Map.of("sluice.limiters.transcode.cost-scale", "100"))) { // 50 -> 1, 800 -> 8
      var sent = mixedLoad(server);
      try {
        // the CPU (well under 70% of 32 cores) let the limit grow to its ceiling of 16 units
        await()
            .until(() ->
                server.plugin.limiter("transcode").orElseThrow().snapshot().inFlight() == 16);
        assertThat(running).contains(800);
        assertThat(running.stream().filter(c -> c == 50).count()).isGreaterThanOrEqualTo(8);
        assertThat(log.warnings()).noneMatch(w -> w.contains("max-concurrency"));
        JsonNode cost =
            JSON.readTree(server.plugin.statusJson()).get("limiters").get(0).get("cost");
        assertThat(cost.get("scale").asInt()).isEqualTo(100);
        assertThat(cost.get("largestUnits").asInt()).isEqualTo(8);
        assertThat(cost.get("largestDeclared").asInt()).isEqualTo(800);
        assertThat(cost.get("aboveCeiling").asLong()).isZero();
      } finally {
        finish(sent);
      }
    }
  }

  @Test
  void aCostAboveTheCeilingIsReportedOnceInTheLogAndCountedInTheStatus() throws Exception {
    try (TestServer server = start(Map.of())) {
      var sent = mixedLoad(server);
      try {
        // every job costs more than the 16 units the limit can ever have: one runs at a time
        assertThat(running).hasSize(1);
        List<String> warned =
            log.warnings().stream().filter(w -> w.contains("max-concurrency")).toList();
        assertThat(warned).hasSize(1);
        assertThat(warned.get(0))
            .contains("'transcode'", "query parameter cpuMillis=", "max-concurrency 16")
            .contains("sluice.limiters.transcode.cost-scale");
        JsonNode limiter =
            JSON.readTree(server.plugin.statusJson()).get("limiters").get(0);
        JsonNode cost = limiter.get("cost");
        assertThat(cost.get("spec").asText()).isEqualTo("query:cpuMillis");
        assertThat(cost.get("scale").asInt()).isEqualTo(1);
        assertThat(cost.get("ceiling").asInt()).isEqualTo(16);
        assertThat(cost.get("largestUnits").asInt()).isEqualTo(800);
        assertThat(cost.get("aboveCeiling").asLong()).isEqualTo(21);
      } finally {
        finish(sent);
      }
    }
  }

  @Test
  void aCostAboveTheCeilingReachesStderrOnceWithoutAnSlf4jBackend() {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    Warnings noBackend = new Warnings(
        LoggerFactory.getLogger(CostScaleTest.class),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    CostCeiling ceiling = new CostCeiling("work", 16, noBackend);
    RequestCost cost = RequestCost.of("query:ms", 1, QueueSettings.FIFO, ceiling);

    cost.of(TestRequest.NONE, name -> "800");
    cost.of(TestRequest.NONE, name -> "900");

    String written = err.toString(StandardCharsets.UTF_8);
    assertThat(written).startsWith(Warnings.NO_BACKEND);
    assertThat(written.lines().filter(line -> line.startsWith("Sluice WARN")))
        .singleElement()
        .asString()
        .contains("limiter 'work'", "costs 800 units", "max-concurrency 16");
    assertThat(ceiling.aboveCeiling()).isEqualTo(2);
  }

  @Test
  void aScaledCostIsRoundedAndAtLeastOne() {
    RequestCost cost = RequestCost.of(
        "query:ms",
        100,
        QueueSettings.FIFO,
        new CostCeiling(
            "work", Integer.MAX_VALUE, Warnings.to(LoggerFactory.getLogger(CostScaleTest.class))));
    Map<String, Integer> expected = Map.of("1", 1, "49", 1, "50", 1, "149", 1, "150", 2, "800", 8);
    expected.forEach((declared, units) ->
        assertThat(cost.of(TestRequest.NONE, name -> declared)).as(declared).isEqualTo(units));
  }

  @Test
  void aCostScaleWithoutADeclaredCostFailsStartupNamingIt() {
    assertThatThrownBy(() -> start(Map.of(
            "sluice.limiters.transcode.cost", "learned",
            "sluice.limiters.transcode.cost-scale", "100")))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.transcode.cost-scale")
        .hasMessageContaining("100")
        .hasMessageContaining("learned");
  }
}
