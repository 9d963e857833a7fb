package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class MondayVariantTest {

  private static final String T = "sluice.limiters.transcode.";

  @Test
  void theDefaultListIsNoneStaticCpuAndCpuWithCost() {
    List<MondayVariant> variants =
        MondayVariant.parse("--variants", MondayVariant.DEFAULT_NAMES, 2);

    assertThat(variants)
        .extracting(MondayVariant::name)
        .containsExactly("none", "static", "cpu", "cpu+cost");
    assertThat(variants).allMatch(v -> v.serverProperties().get(0).equals("demo.engine=ffmpeg"));
  }

  @Test
  void noneTurnsSluiceOff() {
    assertThat(MondayVariant.parse("--variants", "none", 2).get(0).properties())
        .containsExactly("sluice.enabled=false");
  }

  @Test
  void staticIsTheDemosAutoLimitAndStaticNIsNPermits() {
    assertThat(MondayVariant.parse("--variants", "static", 8).get(0).properties())
        .contains(T + "limit=fixed", T + "max-concurrency=6");
    assertThat(MondayVariant.parse("--variants", "static", 2).get(0).properties())
        .contains(T + "max-concurrency=1");
    assertThat(MondayVariant.parse("--variants", "static-3", 2).get(0).properties())
        .contains(T + "max-concurrency=3");
  }

  @Test
  void theCpuVariantsHoldTheMachineAtSeventyPercentAndOneReadsTheDeclaredCost() {
    MondayVariant cpu = MondayVariant.parse("--variants", "cpu", 2).get(0);
    MondayVariant cost = MondayVariant.parse("--variants", "cpu+cost", 2).get(0);

    assertThat(cpu.properties())
        .contains(T + "limit=cpu", T + "cpu-source=machine", T + "target-cpu=0.7")
        .noneMatch(p -> p.contains("cost"));
    assertThat(cost.properties())
        .containsAll(cpu.properties())
        .contains(T + "cost=header:X-Footage-Cost");
  }

  @Test
  void aNameTwiceRunsOnce() {
    assertThat(MondayVariant.parse("--variants", "cpu, cpu", 2)).hasSize(1);
  }

  @Test
  void anUnknownNameIsRefusedNamingTheOptionTheValueAndTheChoices() {
    assertThatThrownBy(() -> MondayVariant.parse("--variants", "cpu,fifo", 2))
        .hasMessage(
            "--variants must be a comma list of none, static, static-N (N permits), cpu, cpu+cost"
                + " but was 'cpu,fifo'");
    assertThatThrownBy(() -> MondayVariant.parse("--variants", "static-0", 2))
        .hasMessageContaining("static-0");
  }
}
