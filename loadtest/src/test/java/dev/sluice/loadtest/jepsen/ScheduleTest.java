package dev.sluice.loadtest.jepsen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The nemesis's plan is a function of the seed: printed, and replayed with {@code --seed}. */
class ScheduleTest {

  private static final List<FaultKind> ALL = List.of(FaultKind.values());

  @Test
  void theSameSeedDrawsTheSameSchedule() {
    Schedule first = Schedule.of(1234, Duration.ofMinutes(30), ALL);
    Schedule again = Schedule.of(1234, Duration.ofMinutes(30), ALL);
    assertThat(again).isEqualTo(first);
    assertThat(again.describe()).isEqualTo(first.describe());
  }

  @Test
  void anotherSeedDrawsAnotherSchedule() {
    assertThat(Schedule.of(1, Duration.ofMinutes(30), ALL).faults())
        .isNotEqualTo(Schedule.of(2, Duration.ofMinutes(30), ALL).faults());
  }

  @Test
  void aLongRunDrawsEveryKindAndFaultsThatFitItsLength() {
    Schedule schedule = Schedule.of(42, Duration.ofMinutes(30), ALL);
    assertThat(schedule.faults()).extracting(Schedule.Planned::kind).containsAll(ALL);
    long planned = schedule.faults().stream()
        .mapToLong(f -> f.lasts().plus(f.quietAfter()).toMillis())
        .sum();
    assertThat(planned).isLessThanOrEqualTo(Duration.ofMinutes(30).toMillis());
    assertThat(schedule.faults()).allSatisfy(f -> {
      assertThat(f.lasts()).isBetween(Duration.ofSeconds(1), Duration.ofSeconds(30));
      assertThat(f.node()).isBetween(0, 1);
      assertThat(f.clock().isEmpty()).isEqualTo(f.kind() != FaultKind.CLOCK);
    });
  }

  @Test
  void onlyTheKindsAskedForAreDrawnAndAShortRunStillHasOne() {
    Schedule schedule =
        Schedule.of(9, Duration.ofSeconds(30), List.of(FaultKind.FLUSHALL, FaultKind.CLOCK));
    assertThat(schedule.faults())
        .isNotEmpty()
        .extracting(Schedule.Planned::kind)
        .allMatch(k -> k == FaultKind.FLUSHALL || k == FaultKind.CLOCK);
  }

  @Test
  void aClockFaultSaysItsNodeAndItsFakeTime() {
    Schedule.Planned clock = new Schedule.Planned(
        FaultKind.CLOCK, Duration.ofSeconds(20), Duration.ofSeconds(5), 1, "+1h x1.02");
    assertThat(clock.describe()).isEqualTo("clock of node 2 (FAKETIME \"+1h x1.02\") for 20.0 s");
    Schedule.Planned flush =
        new Schedule.Planned(FaultKind.FLUSHALL, Duration.ofSeconds(2), Duration.ZERO, 0, "");
    assertThat(flush.describe()).isEqualTo("flushall");
  }

  @Test
  void faultKindsParseFromACommaListAndAnUnknownOneIsNamed() {
    assertThat(FaultKind.parse("--variants", "reset, clock,reset"))
        .containsExactly(FaultKind.RESET, FaultKind.CLOCK);
    assertThatThrownBy(() -> FaultKind.parse("--variants", "reset,partition"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'partition'")
        .hasMessageContaining(FaultKind.ids());
  }
}
