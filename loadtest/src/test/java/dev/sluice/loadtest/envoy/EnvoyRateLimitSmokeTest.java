package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.LoadTest;
import dev.sluice.loadtest.Options;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The whole scenario with tiny durations, on a real redis-server and two service replicas in child
 * JVMs: the report's shape, and the correctness targets (the exact limit across the replicas by
 * their own counts, the
 * RLQS sum within 5% of the quota, no starvation, the killed replica's proxies answered by the
 * other before their TTL). The timing targets are only checked to be judged, never to be met.
 */
@Tag("integration")
class EnvoyRateLimitSmokeTest {

  @TempDir
  Path out;

  @Test
  void aShortRunReportsEveryTargetAndTheCorrectnessTargetsHold() throws Exception {
    Options options = Options.parse(
        "--embedded",
        "--scenario",
        "envoy-ratelimit",
        "--duration",
        "2s",
        "--rate",
        "300",
        "--out",
        out.toString());

    Path report = LoadTest.run(options);

    String html = Files.readString(report);
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("Load average")
        .contains("--scenario envoy-ratelimit --duration 2s --rate 300")
        .contains("RLS latency, open loop")
        .contains("RLQS: three proxies, one quota, a replica killed");
    JsonNode summary = new ObjectMapper().readTree(out.resolve("summary.json").toFile());
    assertThat(summary.path("machine").asText()).contains("cores");
    assertThat(summary.path("loadAverageBefore").asText()).isNotEmpty();
    JsonNode verdicts = summary.path("verdicts");
    assertThat(verdicts.path("latency").get(0).path("outcome").asText())
        .as(verdicts.toString())
        .isIn("MET", "MISSED");
    assertThat(verdicts.path("throughput")).hasSize(2);
    verdicts
        .path("throughput")
        .forEach(
            v -> assertThat(v.path("outcome").asText()).as(v.toString()).isIn("MET", "MISSED"));
    // beside the service's latency, a script-only and an empty RateLimitService's at the same rate
    JsonNode latency = summary.path("figures").path("latency");
    assertThat(latency.path("script-only service latency (ms)").path("p99").asDouble())
        .as(latency.toString())
        .isPositive();
    assertThat(latency.path("script-only service errors").asLong())
        .as(latency.toString())
        .isZero();
    assertThat(latency.path("empty service latency (ms)").path("p99").asDouble())
        .as(latency.toString())
        .isPositive();
    assertThat(latency.path("empty service errors").asLong())
        .as(latency.toString())
        .isZero();
    // beside Redis's ceiling, the transport's: an empty RateLimitService, same client and load
    JsonNode throughput = summary.path("figures").path("throughput");
    for (String inFlight : List.of("16 in flight", "64 in flight")) {
      assertThat(throughput.path(inFlight).path("empty service answers/s").asDouble())
          .as(throughput.toString())
          .isPositive();
      assertThat(throughput.path(inFlight).path("empty service errors").asLong())
          .isZero();
      assertThat(throughput.path(inFlight).path("script-only service answers/s").asDouble())
          .as(throughput.toString())
          .isPositive();
      assertThat(throughput.path(inFlight).path("script-only service errors").asLong())
          .isZero();
    }
    // in a run of two seconds the observer attributes the admissions that straddle a second's edge
    // by their counter values, which can leave a judged window a few short (seen once in CI: 96);
    // what must hold in its view is that no window admitted more than the limit or one counter
    // value twice. Exactness is asserted on the replicas' own counts, which need no attribution
    assertThat(verdicts.path("exactLimit"))
        .as(verdicts.path("exactLimit").toString())
        .hasSize(2);
    assertThat(verdicts.path("exactLimit").get(0).path("outcome").asText())
        .as(verdicts.path("exactLimit").toString())
        .isIn("MET", "MISSED");
    assertThat(summary.path("windows")).as("judged windows").isNotEmpty().allSatisfy(w -> {
      assertThat(w.path("duplicates").asInt()).as(w.toString()).isZero();
      assertThat(w.path("admitted").asLong())
          .as(w.toString())
          .isBetween(1L, EnvoyRateLimitRun.WINDOW_LIMIT);
    });
    assertThat(verdicts.path("exactLimit").get(1).path("outcome").asText())
        .as("exactly the limit by the replicas' counts: " + verdicts.path("exactLimit"))
        .isEqualTo("MET");
    assertThat(summary.path("serverWindows"))
        .as("windows judged by the replicas' counts")
        .isNotEmpty()
        .allSatisfy(w -> {
          assertThat(w.path("admittedByReplica")).as(w.toString()).hasSize(2);
          assertThat(w.path("refused").asLong()).as(w.toString()).isPositive();
        });
    JsonNode rlqs = verdicts.path("rlqs");
    assertThat(rlqs).as(rlqs.toString()).hasSize(4);
    assertThat(rlqs.get(0).path("outcome").asText())
        .as("sum within 5%: " + rlqs)
        .isEqualTo("MET");
    assertThat(rlqs.get(1).path("outcome").asText())
        .as("no starvation: " + rlqs)
        .isEqualTo("MET");
    assertThat(rlqs.get(2).path("outcome").asText()).as(rlqs.toString()).isIn("MET", "MISSED");
    assertThat(rlqs.get(3).path("outcome").asText())
        .as("reconnect after kill -9: " + rlqs)
        .isEqualTo("MET");
    assertThat(summary.path("figures").path("latency").path("sent").asLong()).isPositive();
    assertThat(summary.path("windows")).isNotEmpty();
    assertThat(summary.path("rlqsReconnects")).hasSize(2);
  }
}
