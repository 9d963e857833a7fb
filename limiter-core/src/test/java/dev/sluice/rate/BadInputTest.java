package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Bad keys, costs and settings fail with a message naming the value, and corrupt nothing. */
class BadInputTest {

  private final VirtualTime time = new VirtualTime();
  private final RateLimiter limiter =
      RateLimiter.of(Algorithm.TOKEN_BUCKET, RateLimit.of(3, Duration.ofSeconds(1)), time);

  @Test
  void nullKeyIsRejected() {
    assertThatThrownBy(() -> limiter.tryAcquire(null, 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must not be null");
  }

  @Test
  void emptyKeyIsRejected() {
    assertThatThrownBy(() -> limiter.tryAcquire("", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key must not be empty but was ''");
  }

  @Test
  void zeroOrNegativeCostIsRejectedNamingTheValueAndTakesNothing() {
    assertThatThrownBy(() -> limiter.tryAcquire("k", 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("cost must be >= 1 but was 0 (key 'k')");
    assertThatThrownBy(() -> limiter.tryAcquire("k", -5))
        .hasMessageContaining("cost must be >= 1 but was -5");
    assertThatThrownBy(() -> limiter.refund("k", -1)).hasMessageContaining("but was -1");
    assertThat(limiter.tryAcquire("k", 3).allowed()).as("the bucket is intact").isTrue();
  }

  @Test
  void longKeysAreStoredAsAFixedLengthDigestAndStayDistinct() {
    String prefix = "x".repeat(300);
    String first = prefix + "1";
    String second = prefix + "2";
    assertThat(BoundedKey.of(first)).hasSize(BoundedKey.DIGEST_PREFIX.length() + 43);
    assertThat(BoundedKey.of(first)).isNotEqualTo(BoundedKey.of(second));
    assertThat(limiter.tryAcquire(first, 3).allowed()).isTrue();
    assertThat(limiter.tryAcquire(first).allowed()).isFalse();
    assertThat(limiter.tryAcquire(second, 3).allowed())
        .as("a different long key")
        .isTrue();
  }

  @Test
  void aKeyThatLooksLikeADigestCannotShareAnotherKeysState() {
    String longKey = "y".repeat(400);
    String forged = BoundedKey.of(longKey);
    assertThat(limiter.tryAcquire(longKey, 3).allowed()).isTrue();
    assertThat(limiter.tryAcquire(forged, 3).allowed()).isTrue();
  }

  @Test
  void costMessageShortensAHugeKey() {
    assertThatThrownBy(() -> limiter.tryAcquire("z".repeat(10_000), 0))
        .hasMessageContaining("(10000 chars)");
  }

  @Test
  void badSettingsNameTheSettingAndTheValue() {
    RateLimit limit = RateLimit.of(3, Duration.ofSeconds(1));
    assertThatThrownBy(() -> RateLimiter.builder(Algorithm.GCRA, limit).maxKeys(0))
        .hasMessage("maxKeys must be >= 1 but was 0");
    assertThatThrownBy(
            () -> RateLimiter.builder(Algorithm.GCRA, limit).expireAfterIdle(Duration.ZERO))
        .hasMessage("expireAfterIdle must be positive but was PT0S");
    assertThatThrownBy(() -> RateLimiter.builder(Algorithm.GCRA, limit)
            .expireAfterIdle(Duration.ofMillis(10))
            .build())
        .hasMessageContaining("expireAfterIdle must be at least PT1.000000002S")
        .hasMessageContaining("but was PT0.01S");
    assertThatThrownBy(() -> RateLimiter.builder(null, limit))
        .hasMessageContaining("allowed: token-bucket, leaky-bucket");
    assertThatThrownBy(() -> RateLimiter.builder(
                Algorithm.FIXED_WINDOW, RateLimit.of(1L << 40, Duration.ofDays(1)))
            .build())
        .hasMessage("fixed-window limit must be <= 4294967295 but was 1099511627776");
    assertThatThrownBy(() -> RateLimit.of(0, Duration.ofSeconds(1)))
        .hasMessage("limit must be >= 1 but was 0");
    assertThatThrownBy(() -> RateLimit.of(1, Duration.ofSeconds(-1)))
        .hasMessageContaining("but was PT-1S");
  }

  @Test
  void aLimitTooLargeToCountIsRefusedAtBuild() {
    RateLimit huge = new RateLimit(1, Duration.ofDays(36_500), Long.MAX_VALUE / 2);
    assertThatThrownBy(() -> RateLimiter.of(Algorithm.TOKEN_BUCKET, huge, time))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("overflows for RateLimit[limit=1");
    assertThatThrownBy(() -> RateLimiter.of(Algorithm.GCRA, huge, time))
        .hasMessageContaining("overflows");
  }
}
