package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.Options;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

class MondayOptionsTest {

  @Test
  void theReplayRunsTenMinutesUnlessToldOtherwise() {
    Options options = Options.parse("--embedded", "--scenario", "monday");

    assertThat(options.experiment().id()).isEqualTo("monday");
    assertThat(options.duration()).isEqualTo(Duration.ofMinutes(10));
    assertThat(Options.parse("--embedded", "--scenario", "monday", "--duration", "2m")
            .duration())
        .isEqualTo(Duration.ofMinutes(2));
  }

  @Test
  void itNeedsEmbeddedAndKnownVariantsBeforeAnyServiceStarts() {
    assertThatThrownBy(
            () -> Options.parse("--target", "http://localhost:7070", "--scenario", "monday"))
        .hasMessageContaining("--scenario monday")
        .hasMessageContaining("--embedded");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "monday", "--variants", "cpu,turbo"))
        .hasMessageContaining("'cpu,turbo'");
    assertThat(Options.parse("--embedded", "--scenario", "monday", "--variants", "static-2,cpu")
            .variantList())
        .hasValue("static-2,cpu");
  }

  @Test
  void anotherScenariosOptionIsRefused() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "monday", "--mix", "cpu"))
        .hasMessageContaining("--mix is for --scenario adaptive");
  }

  @Test
  void completionsAreCountedPerMinuteOfTheWindowTheLastPartial() {
    assertThat(MondayResult.perMinute(List.of(1.0, 59.9, 60.0, 130.0, 150.0, 151.0), 150))
        .containsExactly(2L, 1L, 2L); // 151 s is after the window
    assertThat(MondayResult.perMinute(List.of(3.0), 10)).containsExactly(1L);
  }

  @Test
  void percentilesAreNearestRank() {
    List<Double> values = new java.util.ArrayList<>();
    for (int i = 1; i <= 100; i++) {
      values.add((double) i);
    }
    assertThat(MondayResult.percentile(values, 99)).isEqualTo(99);
    assertThat(MondayResult.percentile(values, 100)).isEqualTo(100);
    assertThat(MondayResult.percentile(List.of(5.0), 50)).isEqualTo(5);
    assertThat(MondayResult.percentile(List.of(), 99)).isNaN();
  }

  @Test
  void onlyTheReadingsInsideTheWindowAreJudged() {
    CpuTrace trace = new CpuTrace(List.of(
        new CpuTrace.Sample(9, 1, 50),
        new CpuTrace.Sample(10, 1, 60),
        new CpuTrace.Sample(11, 1, 100)));

    assertThat(MondayReplay.windowOnly(trace, 10).samples()).hasSize(2);
  }
}
