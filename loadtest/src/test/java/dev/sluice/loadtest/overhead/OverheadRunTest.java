package dev.sluice.loadtest.overhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OverheadRunTest {

  @TempDir Path dir;

  @Test
  void overAsManyRoundsAsServicesEachGoesFirstOnceAndEveryRoundRunsEachOnce() {
    int count = 5;
    Set<Integer> firsts = new HashSet<>();
    for (int round = 0; round < count; round++) {
      List<Integer> order = OverheadRun.order(round, count);
      assertThat(order).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
      firsts.add(order.get(0));
    }
    assertThat(firsts).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    assertThat(OverheadRun.order(7, count)).isEqualTo(OverheadRun.order(2, count));
  }

  @Test
  void theVariantsStartWithTheBaselineAndTheRateVariantReadsTheRuleWrittenForIt() throws IOException {
    Path rules = dir.resolve("rules.yaml");
    List<OverheadVariant> variants = OverheadVariant.all(rules);
    assertThat(variants).extracting(OverheadVariant::name)
        .containsExactly("none", "sluice-limiter", "sluice-rate", "ratelimitplugin", "qos");
    assertThat(variants.get(0).name()).isEqualTo(OverheadVariant.BASELINE);
    assertThat(variants.get(0).serverProperties()).containsExactly("sluice.enabled=false");
    assertThat(variants.get(2).serverProperties())
        .contains("sluice.rules.file=" + rules.toAbsolutePath());
    assertThat(Files.readString(rules)).contains("resource: " + OverheadVariant.ENDPOINT)
        .contains("actor: ip");
    // the peers run without Sluice, so each row measures one limiter
    assertThat(variants.subList(3, 5)).allSatisfy(v ->
        assertThat(v.serverProperties()).contains("sluice.enabled=false")
            .anyMatch(p -> p.startsWith("demo.overhead-peer=")));
  }

  @Test
  void aServiceListThatDoesNotMatchTheVariantsIsRefused() throws IOException {
    List<OverheadVariant> variants = OverheadVariant.all(dir.resolve("rules.yaml"));
    assertThatThrownBy(() -> OverheadRun.run(variants,
        List.of(new OverheadRun.Service(URI.create("http://127.0.0.1:1/"), 1)),
        OverheadRun.generator(), 1, Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 variants, 1 services");
  }

  @Test
  void wrksSummaryGivesRequestsDurationNon2xxAndPercentiles() throws IOException {
    String output = String.join("\n",
        "Running 5s test @ http://127.0.0.1:4711/api/ping",
        "  1 threads and 16 connections",
        "  Thread Stats   Avg      Stdev     Max   +/- Stdev",
        "    Latency     1.10ms  612.31us  20.31ms   91.20%",
        "  Latency Distribution",
        "     50%    0.98ms",
        "     75%    1.20ms",
        "     90%    1.61ms",
        "     99%    3.50ms",
        "  63211 requests in 5.01s, 6.33MB read",
        "  Non-2xx or 3xx responses: 3",
        "Requests/sec:  12616.97", "");
    OverheadRun.Round round = OverheadRun.Wrk.parse(output);
    assertThat(round.requests()).isEqualTo(63211);
    assertThat(round.seconds()).isEqualTo(5.01);
    assertThat(round.non2xx()).isEqualTo(3);
    assertThat(round.p50Millis()).isEqualTo(0.98);
    assertThat(round.p99Millis()).isEqualTo(3.5);
    assertThat(OverheadRun.Wrk.parse(output.replace("  Non-2xx or 3xx responses: 3\n", "")
        .replace("99%    3.50ms", "99%  750.00us")).p99Millis()).isEqualTo(0.75);
  }

  @Test
  void warmUpEndsWhenTwoRoundsAgreeWithinTenPercent() {
    assertThat(OverheadRun.settled(100, 109)).isTrue();
    assertThat(OverheadRun.settled(100, 91)).isTrue();
    assertThat(OverheadRun.settled(100, 120)).isFalse();
    assertThat(OverheadRun.settled(300, 100)).isFalse();
    assertThat(OverheadRun.settled(Double.NaN, 100)).isFalse();
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(OverheadRun.median(List.of(new double[] {3}, new double[] {1}, new double[] {2}), 0))
        .isEqualTo(2);
    assertThat(OverheadRun.median(List.of(new double[] {4}, new double[] {1}, new double[] {2},
        new double[] {3}), 0)).isEqualTo(2.5);
  }
}
