package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Acquire-then-refund: a request rejected by one limit leaves the others as if it never came. */
class RefundTest {

  private final VirtualTime time = new VirtualTime();

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aRequestRejectedByAnotherLimitConsumesNoQuota(Algorithm algorithm) {
    RateLimiter perAccount =
        RateLimiter.of(algorithm, RateLimit.of(5, Duration.ofMinutes(1)), time);
    RateLimiter perIp =
        RateLimiter.of(Algorithm.FIXED_WINDOW, RateLimit.of(1, Duration.ofHours(1)), time);
    int admitted = 0;
    for (int i = 0; i < 20; i++) {
      RateDecision account = perAccount.tryAcquire("acct");
      if (!account.allowed()) {
        continue;
      }
      if (perIp.tryAcquire("10.0.0.1").allowed()) {
        admitted++;
      } else {
        perAccount.refund("acct", 1);
      }
      time.advanceNanos(1);
    }
    assertThat(admitted).isEqualTo(1);
    // only the one admitted request counts against the account: 4 of 5 left
    assertThat(perAccount.tryAcquire("acct", 4).remaining()).isZero();
    assertThat(perAccount.tryAcquire("acct").allowed()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void refundNeverRaisesAKeyAboveItsInitialCapacity(Algorithm algorithm) {
    RateLimiter limiter = RateLimiter.of(algorithm, RateLimit.of(3, Duration.ofSeconds(1)), time);
    limiter.tryAcquire("k");
    limiter.refund("k", 1_000);
    limiter.refund("never-seen", 5);
    assertThat(limiter.tryAcquire("k", 3).allowed()).isTrue();
    assertThat(limiter.tryAcquire("k").allowed()).isFalse();
    assertThat(limiter.tryAcquire("never-seen", 3).remaining()).isZero();
  }
}
