package dev.sluice.loadtest;

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
        .contains("actor: account");
    // the peers run without Sluice, so each row measures one limiter
    assertThat(variants.subList(3, 5)).allSatisfy(v ->
        assertThat(v.serverProperties()).contains("sluice.enabled=false")
            .anyMatch(p -> p.startsWith("demo.overhead-peer=")));
  }

  @Test
  void aURIListThatDoesNotMatchTheVariantsIsRefused() throws IOException {
    List<OverheadVariant> variants = OverheadVariant.all(dir.resolve("rules.yaml"));
    assertThatThrownBy(() -> OverheadRun.run(variants, List.of(URI.create("http://127.0.0.1:1/")),
        1, Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("5 variants, 1 URIs");
  }
}
