package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.Options;
import java.util.List;
import org.junit.jupiter.api.Test;

class VariantTest {

  @Test
  void greedyHostComparesFifoFairAndNetflixByDefault() {
    assertThat(Variant.select(TenantScenario.GREEDY_HOST, List.of()))
        .extracting(Variant::name)
        .containsExactly("fifo", "fair", "netflix-partitioned");
    assertThat(Variant.select(TenantScenario.PRIORITY, List.of()))
        .extracting(Variant::name)
        .containsExactly("fifo", "classes");
    Variant fair = Variant.fair();
    assertThat(fair.serverProperties())
        .contains(
            "sluice.limiters.transcode.queue=fair",
            "sluice.limiters.transcode.queue-key=header:X-Host-Id",
            "sluice.limiters.transcode.max-queue-per-key=1",
            "sluice.limiters.transcode.priority-header=X-Priority");
    assertThat(Variant.netflixPartitioned().serverProperties())
        .contains("demo.limiter-peer=netflix-partitioned")
        .anyMatch(p -> p.startsWith("demo.limiter-peer.partitions=maintenance-host-01,")
            && p.endsWith(",maintenance-host-32"));
  }

  @Test
  void specsPickBuiltInVariantsAndAddProperties() {
    List<Variant> variants = Variant.select(
        TenantScenario.GREEDY_HOST,
        List.of("fair", "fair:sluice.limiters.transcode.max-queue=64", "mine:a.b=c", "fifo"));
    assertThat(variants).extracting(Variant::name).containsExactly("fair", "mine", "fifo");
    assertThat(variants.get(0).serverProperties())
        .startsWith(Variant.fair().serverProperties().toArray(String[]::new))
        .endsWith("sluice.limiters.transcode.max-queue=64");
    assertThat(variants.get(1).serverProperties()).containsExactly("a.b=c");
  }

  @Test
  void badSpecsAndMisplacedVariantsAreNamed() {
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "greedy-host", "--variant", "x:nokey"))
        .hasMessageContaining("--variant")
        .hasMessageContaining("nokey");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "greedy-host", "--variant", "a b"))
        .hasMessageContaining("'a b'");
    assertThatThrownBy(() -> Options.parse("--embedded", "--variant", "fair"))
        .hasMessageContaining("--variant")
        .hasMessageContaining("monday-maintenance");
    assertThat(Options.parse("--embedded", "--scenario", "priority", "--variant", "classes")
            .variants())
        .containsExactly("classes");
  }

  @Test
  void ignoredPropertiesAreReadFromTheServiceLog() {
    String log = """
        12:00 WARN Unknown Sluice property 'sluice.limiters.transcode.queue' (from system) is ignored
        12:00 WARN Unknown Sluice property 'sluice.other' (from system) is ignored
        """;
    assertThat(VariantComparison.ignoredProperties(log, Variant.fair().serverProperties()))
        .containsExactly("sluice.limiters.transcode.queue");
    assertThat(VariantComparison.ignoredProperties("all good", Variant.fair().serverProperties()))
        .isEmpty();
  }
}
