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
    Capacity measured = new Capacity("short", 2, 92, 100, 21, 24, 100, Double.NaN);

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

  @Test
  void everyServiceGetsTheCapacityServicesWorkPerJob() {
    String log = "12:00:01 INFO started: engine frames (0.4312 frames/ms calibrated), 2 cores\n";
    double rate = Capacity.calibratedRate(log);
    assertThat(rate).isEqualTo(0.4312);
    Capacity measured =
        new Capacity("long", 2, 9.2, 10, 210, 229, 10, Double.NaN).withFramesPerMilli(rate);
    assertThat(measured.sameWorkProperty()).hasValue("demo.frames-per-milli=0.4312");
    assertThat(measured.perSecond()).isEqualTo(9.2);

    // a service that was given its rate, or says nothing: nothing to pass on
    assertThat(Capacity.calibratedRate("frames (0.4500 frames/ms set by demo.frames-per-milli)"))
        .isNaN();
    assertThat(Capacity.derived(JobKind.LONG, 2).sameWorkProperty()).isEmpty();
  }
}
