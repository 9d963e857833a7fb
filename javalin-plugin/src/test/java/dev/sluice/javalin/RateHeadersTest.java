package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rules.Rule;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The numbers and strings of the rate-limit headers, at their edges. */
class RateHeadersTest {

  private static Rule rule(long limit, Duration period, long burst, Algorithm algorithm) {
    return Rule.builder()
        .id("r")
        .resource("/api/**")
        .actor("ip")
        .limit(limit, period)
        .burst(burst)
        .algorithm(algorithm)
        .build();
  }

  @Test
  void anSfStringEscapesQuotesAndBackslashes() {
    assertThat(RateHeaders.sfString("a\"b\\c")).isEqualTo("\"a\\\"b\\\\c\"");
  }

  @Test
  void anSfStringKeepsPrintableAsciiAndReplacesEverythingElse() {
    assertThat(RateHeaders.sfString(" ~")).isEqualTo("\" ~\"");
    assertThat(RateHeaders.sfString("\u001f\u007fé")).isEqualTo("\"???\"");
  }

  @Test
  void aBucketAdvertisesItsBurstAsTheQuota() {
    assertThat(RateHeaders.quota(rule(10, Duration.ofSeconds(1), 20, Algorithm.TOKEN_BUCKET)))
        .isEqualTo(20);
    assertThat(RateHeaders.quota(rule(10, Duration.ofSeconds(1), 20, Algorithm.GCRA)))
        .isEqualTo(20);
    assertThat(RateHeaders.quota(rule(10, Duration.ofSeconds(1), 20, Algorithm.LEAKY_BUCKET)))
        .isEqualTo(20);
  }

  @Test
  void aWindowAdvertisesItsLimitWhateverTheBurst() {
    assertThat(RateHeaders.quota(rule(10, Duration.ofSeconds(1), 20, Algorithm.FIXED_WINDOW)))
        .isEqualTo(10);
    assertThat(RateHeaders.quota(rule(10, Duration.ofSeconds(1), 20, Algorithm.SLIDING_WINDOW)))
        .isEqualTo(10);
  }

  @Test
  void theWindowIsTheTimeTheQuotaTakesToRefillRoundedUp() {
    assertThat(RateHeaders.window(rule(10, Duration.ofSeconds(1), 20, Algorithm.TOKEN_BUCKET)))
        .isEqualTo(2);
    assertThat(RateHeaders.window(rule(3, Duration.ofSeconds(1), 4, Algorithm.TOKEN_BUCKET)))
        .isEqualTo(2);
    assertThat(RateHeaders.window(rule(60, Duration.ofMinutes(1), 60, Algorithm.FIXED_WINDOW)))
        .isEqualTo(60);
  }

  @Test
  void aWindowShorterThanASecondIsAdvertisedAsOneSecond() {
    assertThat(RateHeaders.window(rule(5, Duration.ofMillis(100), 5, Algorithm.TOKEN_BUCKET)))
        .isEqualTo(1);
  }

  @Test
  void aLimiterAdvertisesItsLimitAndItsFreePermits() {
    RateHeaders headers = new RateHeaders(true, true);

    assertThat(headers.limiterItems("transcode", 4, 3))
        .containsExactly("\"transcode\";q=4;qu=\"concurrent-requests\"", "\"transcode\";r=3");
  }

  @Test
  void theFreePermitsAdvertisedStayBetweenZeroAndTheLimit() {
    RateHeaders headers = new RateHeaders(true, true);

    assertThat(headers.limiterItems("t", 4, 9)[1]).isEqualTo("\"t\";r=4");
    assertThat(headers.limiterItems("t", 4, -2)[1]).isEqualTo("\"t\";r=0");
    assertThat(headers.limiterItems("t", 4, 0)[1]).isEqualTo("\"t\";r=0");
  }

  @Test
  void aChangedLimitIsAdvertisedAtOnce() {
    RateHeaders headers = new RateHeaders(true, true);
    headers.limiterItems("t", 4, 1);

    assertThat(headers.limiterItems("t", 8, 6))
        .containsExactly("\"t\";q=8;qu=\"concurrent-requests\"", "\"t\";r=6");
  }

  @Test
  void aLimitBeyondTheCachedNumbersIsStillAdvertisedExactly() {
    RateHeaders headers = new RateHeaders(true, true);

    assertThat(headers.limiterItems("t", 5000, 1023)[1]).isEqualTo("\"t\";r=1023");
    assertThat(headers.limiterItems("t", 5000, 1024)[1]).isEqualTo("\"t\";r=1024");
    assertThat(headers.limiterItems("t", 5000, 4999)[1]).isEqualTo("\"t\";r=4999");
  }
}
