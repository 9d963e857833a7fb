package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class RetryAfterTest {

  private final Clock wall = Clock.fixed(Instant.parse("2026-11-23T08:00:00Z"), ZoneOffset.UTC);

  @Test
  void delaySeconds() {
    assertThat(RetryAfter.parse("120", wall)).hasValue(Duration.ofMinutes(2));
    assertThat(RetryAfter.parse(" 0 ", wall)).hasValue(Duration.ZERO);
  }

  @Test
  void httpDateIsMeasuredFromTheWallClock() {
    assertThat(RetryAfter.parse("Mon, 23 Nov 2026 08:01:30 GMT", wall))
        .hasValue(Duration.ofSeconds(90));
  }

  @Test
  void aDateInThePastMeansNow() {
    assertThat(RetryAfter.parse("Sun, 22 Nov 2026 08:00:00 GMT", wall)).hasValue(Duration.ZERO);
  }

  @Test
  void absurdDelaysAreCappedAtAnHour() {
    assertThat(RetryAfter.parse("999999999999999999999999", wall)).hasValue(RetryAfter.MAX);
    assertThat(RetryAfter.parse("Fri, 01 Jan 2100 00:00:00 GMT", wall)).hasValue(RetryAfter.MAX);
  }

  @Test
  void malformedIsEmpty() {
    for (String bad : new String[] {null, "", "  ", "-1", "1.5", "3s", "tomorrow", "23 Nov 2026"}) {
      assertThat(RetryAfter.parse(bad, wall)).as("'%s'", bad).isEmpty();
    }
  }
}
