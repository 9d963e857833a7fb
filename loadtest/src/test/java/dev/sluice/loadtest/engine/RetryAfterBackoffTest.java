package dev.sluice.loadtest.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.github.resilience4j.core.functions.Either;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RetryAfterBackoffTest {

  private static final Instant NOW = Instant.parse("2025-03-03T08:00:00Z");

  private final RetryAfterBackoff backoff = new RetryAfterBackoff(
      Duration.ofMillis(200),
      2.0,
      Duration.ofSeconds(5),
      0.5,
      new Random(1),
      Clock.fixed(NOW, ZoneOffset.UTC));

  private static Either<Throwable, Reply> reply(int status, String retryAfter) {
    return Either.right(new Reply(status, Optional.ofNullable(retryAfter), ""));
  }

  @Test
  void waitsAtLeastTheSecondsTheServerAskedForPlusBoundedJitter() {
    for (int i = 0; i < 1000; i++) {
      assertThat(backoff.apply(1, reply(429, "2"))).isBetween(2000L, 3000L);
      // Retry-After wins over the exponential backoff even on a late try, and is not cut to its cap
      assertThat(backoff.apply(5, reply(429, "30"))).isBetween(30_000L, 45_000L);
    }
  }

  @Test
  void readsAnHttpDateRelativeToTheWallClock() {
    String inThreeSeconds =
        DateTimeFormatter.RFC_1123_DATE_TIME.format(NOW.plusSeconds(3).atOffset(ZoneOffset.UTC));
    assertThat(backoff.apply(1, reply(503, inThreeSeconds))).isBetween(3000L, 4500L);
  }

  @Test
  void withoutRetryAfterBacksOffExponentiallyUpToTheCap() {
    assertThat(backoff.apply(1, reply(504, null))).isBetween(200L, 300L);
    assertThat(backoff.apply(2, reply(504, null))).isBetween(400L, 600L);
    assertThat(backoff.apply(3, Either.left(new IOException("reset")))).isBetween(800L, 1200L);
    assertThat(backoff.apply(10, reply(504, null))).isBetween(5000L, 7500L);
  }

  @Test
  void aRetryAfterOfDaysIsTakenAsAnHour() {
    // read by limiter-client's RetryAfter: a broken value must not park a client for days
    assertThat(backoff.apply(1, reply(429, "864000"))).isBetween(3_600_000L, 5_400_000L);
  }

  @Test
  void anUnreadableRetryAfterFallsBackToTheBackoff() {
    assertThat(backoff.apply(1, reply(429, "soon"))).isBetween(200L, 300L);
    assertThat(backoff.apply(1, reply(429, "-4"))).isBetween(200L, 300L);
  }

  @Test
  void jitterSpreadsClientsToldTheSameRetryAfter() {
    long distinct = java.util.stream.IntStream.range(0, 100)
        .mapToObj(i -> backoff.apply(1, reply(429, "1")))
        .distinct()
        .count();
    assertThat(distinct).isGreaterThan(50);
  }

  @Test
  void rejectsNonsenseSettingsNamingThem() {
    assertThatThrownBy(() -> new RetryAfterBackoff(
            Duration.ZERO, 2, Duration.ofSeconds(1), 0.5, new Random(), Clock.systemUTC()))
        .hasMessageContaining("initial backoff")
        .hasMessageContaining("PT0S");
    assertThatThrownBy(() -> new RetryAfterBackoff(
            Duration.ofMillis(1), 0.5, Duration.ofSeconds(1), 0.5, new Random(), Clock.systemUTC()))
        .hasMessageContaining("multiplier")
        .hasMessageContaining("0.5");
    assertThatThrownBy(() -> new RetryAfterBackoff(
            Duration.ofMillis(1), 2, Duration.ofSeconds(1), 1.5, new Random(), Clock.systemUTC()))
        .hasMessageContaining("jitter")
        .hasMessageContaining("1.5");
  }
}
