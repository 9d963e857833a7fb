package dev.sluice.loadtest.hostile;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.Percentiles;
import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class HostileKeysReportTest {

  private static final long MIB = 1024 * 1024;

  private static HostileKeysReport.Figures figures(
      long heap, long mostKeys, double floodP99, long knownAllowed) {
    return new HostileKeysReport.Figures(
        12 * MIB,
        heap,
        Map.of("per-ip", 100_000L),
        Map.of("per-ip", mostKeys),
        Map.of("per-ip", 90_000L),
        80,
        1_000_000,
        1_000_000,
        Map.of(200, 1_000_000L),
        0,
        100_000_000_000L,
        4,
        // quiet p99 10 ms; under a flood of known keys 40 ms: the aim is 2x the latter
        new Percentiles(1200, 2, 5, 10, 20, 30),
        new Percentiles(3000, 3, 10, 40, 100, 150),
        new Percentiles(5000, 10, 50, floodP99, 300, 400),
        List.of(new HostileKeysReport.Known("per-ip", "198.51.100.7", knownAllowed, 2500, 0, 120)),
        "1.00 / 1.00 / 1.00",
        "1.50 / 1.00 / 1.00",
        2);
  }

  private static List<Verdict.Outcome> outcomes(HostileKeysReport.Figures f) {
    return new HostileKeysReport(f).verdicts().stream().map(Verdict::outcome).toList();
  }

  @Test
  void everyAimMetWhenWithinTheBoundsAndTheAllowance() {
    // 12 MiB + 100,000 keys x 172 bytes = 28.4 MiB; 50 + 60/h x 120 s = 52
    assertThat(outcomes(figures(28 * MIB, 100_000, 79, 52))).containsOnly(Verdict.Outcome.MET);
  }

  @Test
  void aHeapPastTheEstimateATableOverItsBoundAndARefilledKnownActorAreMissed() {
    HostileKeysReport.Figures f = figures(29 * MIB, 100_001, 81, 102);

    assertThat(new HostileKeysReport(f).verdicts())
        .filteredOn(v -> v.outcome() == Verdict.Outcome.MISSED)
        .extracting(Verdict::name)
        .containsExactly(
            "heap after GC",
            "rule per-ip: most keys seen (80 reads)",
            "known actors' p99 during the flood",
            "known per-ip actor 198.51.100.7: permits");
  }

  @Test
  void anAnswerIsReadWhetherItsLengthIsGivenOrChunked() throws Exception {
    InputStream in = new ByteArrayInputStream(("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
            + "HTTP/1.1 429 Too Many Requests\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "3\r\nabc\r\n0\r\n\r\n"
            + "HTTP/1.1 204 No Content\r\n\r\n")
        .getBytes(StandardCharsets.US_ASCII));

    assertThat(KeyFlood.readAnswer(in)).isEqualTo(200);
    assertThat(KeyFlood.readAnswer(in)).isEqualTo(429);
    assertThat(KeyFlood.readAnswer(in)).isEqualTo(204);
  }

  @Test
  void theStatusPageGivesEachLocalRulesKeysAndBoundAndTheMostSeenIsKept() throws Exception {
    Map<String, Long> most = new java.util.HashMap<>();
    Map<String, Long> bound = new java.util.HashMap<>();
    com.fasterxml.jackson.databind.ObjectMapper json =
        new com.fasterxml.jackson.databind.ObjectMapper();

    HostileKeysRun.keys(
        json.readTree("{\"rules\": [{\"id\": \"per-ip\", \"keys\": 7, \"maxKeys\": 100}]}"),
        most,
        bound);
    HostileKeysRun.keys(
        json.readTree("{\"rules\": [{\"id\": \"per-ip\", \"keys\": 5, \"maxKeys\": 100}]}"),
        most,
        bound);

    assertThat(most).containsExactly(Map.entry("per-ip", 7L));
    assertThat(bound).containsExactly(Map.entry("per-ip", 100L));
  }
}
