package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a script's reply becomes a decision, for replies no live bucket gives in a test's time. */
class RateScriptsTest {

  private static final RateRequest REQUEST = new RateRequest(
      "rule", "actor", Algorithm.TOKEN_BUCKET, RateLimit.of(10, Duration.ofSeconds(1)), 1);

  @Test
  void microsecondsBecomeNanoseconds() {
    RateDecision d = RateScripts.decision(REQUEST, List.of(0L, 0L, 250_000L, 900_000L, 0L));

    assertThat(d.allowed()).isFalse();
    assertThat(d.retryAfterNanos()).isEqualTo(250_000_000L);
    assertThat(d.resetAfterNanos()).isEqualTo(900_000_000L);
  }

  @Test
  void aResetCenturiesAwaySaturatesInsteadOfFailing() {
    // a limit of 2 per 8,009 hours with a burst near Long.MAX_VALUE, 4,435 permits taken: the
    // script answers a reset 63,936,962,970,998,256 microseconds (about 2,000 years) away
    RateDecision d = RateScripts.decision(
        REQUEST, List.of(1L, 9_223_371_188_404_051_968L, 0L, 63_936_962_970_998_256L, 0L, 4_435L));

    assertThat(d.allowed()).isTrue();
    assertThat(d.remaining()).isEqualTo(9_223_371_188_404_051_968L);
    assertThat(d.resetAfterNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theLargestExactFigureStaysExact() {
    long micros = Long.MAX_VALUE / 1_000L - 1;

    assertThat(RateScripts.nanos(micros)).isEqualTo(micros * 1_000L);
    assertThat(RateScripts.nanos(micros + 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(RateScripts.nanos(0)).isZero();
    assertThat(RateScripts.nanos(-5)).isZero();
  }

  @Test
  void aRetryOfMinusOneMeansNever() {
    RateDecision d = RateScripts.decision(REQUEST, List.of(0L, 0L, -1L, 5L, 0L));

    assertThat(d.retryAfterNanos()).isEqualTo(Long.MAX_VALUE);
  }
}
