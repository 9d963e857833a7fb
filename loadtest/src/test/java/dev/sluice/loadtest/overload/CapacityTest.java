package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class CapacityTest {

  @Test
  void derivedCapacityIsCoresTimes1000OverTheMeanCpuOfAJob() {
    assertThat(Capacity.derived(JobKind.SHORT, 2).derivedPerSecond()).isEqualTo(100);
    assertThat(Capacity.derived(JobKind.LONG, 2).derivedPerSecond()).isEqualTo(10);
    assertThat(Capacity.derived(JobKind.SIZES, 2).derivedPerSecond())
        .isCloseTo(2000 / 110.0, within(1e-9));
    assertThat(Capacity.derived(JobKind.LONG, 8).derivedPerSecond()).isEqualTo(40);
  }

  @Test
  void pointsAreMultiplesOfTheMeasuredCapacityWhenThereIsOne() {
    Capacity measured = new Capacity("short", 2, 92, 100, 21, 24, 100);

    assertThat(measured.measured()).isTrue();
    assertThat(measured.offered(1)).isEqualTo(92);
    assertThat(measured.offered(10)).isEqualTo(920);
    assertThat(measured.atTarget()).isCloseTo(64.4, within(1e-9));
  }

  @Test
  void withoutAMeasurementTheDerivedCapacityIsTheYardstick() {
    Capacity derived = Capacity.derived(JobKind.LONG, 2);

    assertThat(derived.measured()).isFalse();
    assertThat(derived.offered(5)).isEqualTo(50);
    assertThat(derived.atTarget()).isCloseTo(7, within(1e-9));
  }
}
