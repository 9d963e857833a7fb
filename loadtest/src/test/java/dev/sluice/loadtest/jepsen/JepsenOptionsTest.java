package dev.sluice.loadtest.jepsen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.Options;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code --scenario jepsen}'s command line: its defaults, its fault kinds, its refusals. */
class JepsenOptionsTest {

  @Test
  void byDefaultEveryKindForFiveMinutesAndTheScheduleFollowsTheSeed() {
    Options options = Options.parse("--embedded", "--scenario", "jepsen", "--seed", "7");
    assertThat(options.duration()).isEqualTo(Duration.ofMinutes(5));
    assertThat(JepsenRun.kinds(options)).containsExactly(FaultKind.values());
    assertThat(JepsenRun.schedule(options))
        .isEqualTo(Schedule.of(7, Duration.ofMinutes(5), List.of(FaultKind.values())));
  }

  @Test
  void variantsPickTheFaultKinds() {
    Options options = Options.parse(
        "--embedded", "--scenario", "jepsen", "--duration", "30m", "--variants", "clock,flushall");
    assertThat(options.duration()).isEqualTo(Duration.ofMinutes(30));
    assertThat(JepsenRun.kinds(options)).containsExactly(FaultKind.CLOCK, FaultKind.FLUSHALL);
  }

  @Test
  void anUnknownKindATooShortRunAndARunWithoutEmbeddedAreRefusedSayingWhy() {
    assertThatThrownBy(() ->
            Options.parse("--embedded", "--scenario", "jepsen", "--variants", "reset,split-brain"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'split-brain'")
        .hasMessageContaining("node-pause");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "jepsen", "--duration", "20s"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("--duration for --scenario jepsen must be at least 30s (a warm-up, a fault and"
            + " a tail) but was 20s");
    assertThatThrownBy(
            () -> Options.parse("--target", "http://localhost:7070", "--scenario", "jepsen"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("needs --embedded");
  }
}
