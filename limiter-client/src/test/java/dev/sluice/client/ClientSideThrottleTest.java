package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.random.RandomGenerator;
import org.junit.jupiter.api.Test;

class ClientSideThrottleTest {

  private final VirtualTime time = new VirtualTime();
  private final ClientSideThrottle throttle = new ClientSideThrottle(
      2, Duration.ofSeconds(60).toNanos(), time, RandomGenerator.of("L64X128MixRandom"));

  @Test
  void whileTheBackendAcceptsEverythingNothingIsRejected() {
    for (int i = 0; i < 1000; i++) {
      assertThat(throttle.rejectLocally()).isFalse();
      throttle.accepted();
    }
    assertThat(throttle.rejectProbability()).isZero();
  }

  @Test
  void probabilityFollowsTheSreFormula() {
    // 100 requests, 20 accepted: (100 - 2 x 20) / (100 + 1)
    for (int i = 0; i < 100; i++) {
      throttle.rejectLocally();
      if (i < 20) {
        throttle.accepted();
      }
    }
    assertThat(throttle.rejectProbability())
        .isCloseTo(60.0 / 101, org.assertj.core.data.Offset.offset(1e-9));
  }

  @Test
  void aRefusingBackendIsShedAboutAsOftenAsTheFormulaSays() {
    int rejected = 0;
    for (int i = 0; i < 10_000; i++) {
      if (throttle.rejectLocally()) {
        rejected++;
      }
    }
    assertThat(rejected).isGreaterThan(9_900); // p tends to 1 as requests grow with no accept
  }

  @Test
  void theWindowForgets() {
    for (int i = 0; i < 100; i++) {
      throttle.rejectLocally();
    }
    assertThat(throttle.rejectProbability()).isGreaterThan(0.9);
    time.advance(Duration.ofSeconds(61));
    assertThat(throttle.rejectProbability()).isZero();
  }
}
