package dev.sluice.answer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The whole seconds every door tells a refused client to wait, at their edges. */
class RetryAfterTest {

  private static final long SECOND = 1_000_000_000L;

  @Test
  void retryAfterIsAtLeastOneSecondEvenWhenNothingIsLeftToWait() {
    assertThat(RetryAfter.seconds(0)).isEqualTo(1);
    assertThat(RetryAfter.seconds(-5)).isEqualTo(1);
    assertThat(RetryAfter.seconds(1)).isEqualTo(1);
  }

  @Test
  void retryAfterRoundsUpToTheNextWholeSecond() {
    assertThat(RetryAfter.seconds(SECOND)).isEqualTo(1);
    assertThat(RetryAfter.seconds(SECOND + 1)).isEqualTo(2);
    assertThat(RetryAfter.seconds(3 * SECOND - 1)).isEqualTo(3);
  }

  @Test
  void aResetThatIsDueNowIsZeroSeconds() {
    assertThat(RetryAfter.ceilSeconds(0, 0)).isZero();
    assertThat(RetryAfter.ceilSeconds(1, 0)).isEqualTo(1);
    assertThat(RetryAfter.ceilSeconds(2 * SECOND, 0)).isEqualTo(2);
  }
}
