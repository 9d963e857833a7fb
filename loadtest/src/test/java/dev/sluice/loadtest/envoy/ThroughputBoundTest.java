package dev.sluice.loadtest.envoy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** The most a service could answer when its transport and Redis share the machine's cores. */
class ThroughputBoundTest {

  private static RlsLoad.ClosedLoop perSecond(double rate) {
    return new RlsLoad.ClosedLoop(16, rate, (long) rate, 0);
  }

  @Test
  void equalCostsHalveEither() {
    assertThat(EnvoyReport.bothOnOneMachine(perSecond(100_000), perSecond(100_000)))
        .isCloseTo(50_000, within(1e-6));
  }

  @Test
  void theTimesPerCallAddUp() {
    // 1/40,000 s + 1/120,000 s = 1/30,000 s a decision
    assertThat(EnvoyReport.bothOnOneMachine(perSecond(40_000), perSecond(120_000)))
        .isCloseTo(30_000, within(1e-6));
  }

  @Test
  void theBoundIsBelowEitherCeiling() {
    double bound = EnvoyReport.bothOnOneMachine(perSecond(86_380), perSecond(108_749));
    assertThat(bound).isLessThan(86_380).isLessThan(108_749).isGreaterThan(86_380 / 2.0);
  }
}
