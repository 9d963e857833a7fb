package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MachineCpuTest {

  @Test
  void busyIsEverythingButIdleAndIowaitAndGuestIsNotCountedTwice() {
    MachineCpu cpu = MachineCpu.parse("cpu  100 5 20 800 50 3 2 10 7 1");

    assertThat(cpu.busy()).isEqualTo(100 + 5 + 20 + 3 + 2 + 10);
    assertThat(cpu.total()).isEqualTo(cpu.busy() + 800 + 50);
  }

  @Test
  void thePercentIsTheBusyShareOfTheJiffiesBetweenTwoReadings() {
    MachineCpu before = MachineCpu.parse("cpu 100 0 0 100 0 0 0 0 0 0");
    MachineCpu after = MachineCpu.parse("cpu 170 0 0 130 0 0 0 0 0 0");

    assertThat(after.percentSince(before)).isEqualTo(70);
    assertThat(before.percentSince(before)).isNaN();
  }

  @Test
  void anOldKernelsShorterLineIsRead() {
    assertThat(MachineCpu.parse("cpu 1 2 3 4").total()).isEqualTo(10);
  }

  @Test
  void anythingButTheAggregateLineIsRefusedNamingIt() {
    assertThatThrownBy(() -> MachineCpu.parse("cpu0 1 2 3 4 5"))
        .hasMessageContaining("cpu0 1 2 3 4 5");
  }

  @Test
  void thisMachinesCountersAreReadOnLinux() {
    assertThat(MachineCpu.read()).hasValueSatisfying(c -> assertThat(c.total()).isPositive());
  }
}
