package dev.sluice.client;

import static dev.sluice.client.FakeResponse.headers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.RateLimit;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class RateLimitHeadersTest {

  private static final Instant NOW = Instant.parse("2026-11-23T08:00:00Z");
  private final RateLimitHeaders reader =
      new RateLimitHeaders(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofSeconds(1));

  @Test
  void draftPolicyGivesQuotaPerWindowAndTheTightestPolicyWins() {
    RateLimitAdvice advice = reader.read(headers(
        "RateLimit-Policy", "\"burst\";q=100;w=1, \"daily\";q=1000;w=86400",
        "RateLimit", "\"burst\";r=40;t=1"));

    assertThat(advice.pace()).hasValue(RateLimit.of(1000, Duration.ofDays(1)));
    assertThat(advice.pause()).isZero();
  }

  @Test
  void sluicesOwnAnswerIsRead() {
    RateLimitAdvice advice = reader.read(headers(
        "RateLimit-Policy",
        "\"ingest\";q=2000;w=1",
        "RateLimit",
        "\"ingest\";r=0;t=1",
        "X-RateLimit-Limit",
        "2000",
        "X-RateLimit-Remaining",
        "0",
        "X-RateLimit-Retry-After",
        "1",
        "Retry-After",
        "1"));

    assertThat(advice.pace()).hasValue(RateLimit.of(2000, Duration.ofSeconds(1)));
    assertThat(advice.pause()).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void draftElevenExamplesAreRead() {
    // the examples of draft-ietf-httpapi-ratelimit-headers-11, sections 3.2 and 4.2
    assertThat(
            reader.read(headers("RateLimit-Policy", "\"default\";q=100;w=10")).pace())
        .hasValue(RateLimit.of(100, Duration.ofSeconds(10)));
    assertThat(reader
            .read(headers("RateLimit-Policy", "\"permin\";q=50;w=60,\"perhr\";q=1000;w=3600"))
            .pace())
        .as("1000 an hour is tighter than 50 a minute")
        .hasValue(RateLimit.of(1000, Duration.ofHours(1)));
    assertThat(reader
            .read(headers("RateLimit-Policy", "\"peruser\";q=100;w=60;pk=:cHsdsRa894==:"))
            .pace())
        .hasValue(RateLimit.of(100, Duration.ofSeconds(60)));
    assertThat(reader.read(headers("RateLimit", "\"default\";r=50;t=30")).pause())
        .isZero();
    assertThat(reader
            .read(headers("RateLimit", "\"default\";r=0;t=30;pk=:QXBwLTk5OQ==:"))
            .pause())
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aQuotaInAnotherUnitThanRequestsIsNoPace() {
    // draft-11's example: 65535 content bytes per 10 s are not 65535 requests per 10 s
    assertThat(reader
            .read(headers(
                "RateLimit-Policy",
                "\"peruser\";q=65535;qu=\"content-bytes\";w=10;pk=:sdfjLJUOUH==:"))
            .pace())
        .isEmpty();
    // a concurrency limiter's policy (Sluice's sluice.headers.concurrency): 4 at a time is no rate;
    // the request rule beside it still paces
    RateLimitAdvice both = reader.read(headers(
        "RateLimit-Policy", "\"ingest\";q=2000;w=1",
        "RateLimit-Policy", "\"transcode\";q=4;qu=\"concurrent-requests\";w=1",
        "RateLimit", "\"transcode\";r=0"));
    assertThat(both.pace()).hasValue(RateLimit.of(2000, Duration.ofSeconds(1)));
    assertThat(both.pause())
        .as("no free permit now says nothing of when one frees")
        .isZero();
    assertThat(reader
            .read(headers("RateLimit-Policy", "\"api\";q=30;qu=\"requests\";w=60"))
            .pace())
        .hasValue(RateLimit.of(30, Duration.ofSeconds(60)));
  }

  @Test
  void draftRemainingZeroPausesUntilTheReset() {
    assertThat(reader.read(headers("RateLimit", "\"a\";r=0;t=7")).pause())
        .isEqualTo(Duration.ofSeconds(7));
    assertThat(reader.read(headers("RateLimit", "\"a\";r=3;t=7")).pause()).isZero();
  }

  @Test
  void olderDraftFieldsAreRead() {
    RateLimitAdvice separate = reader.read(
        headers("RateLimit-Limit", "50", "RateLimit-Remaining", "0", "RateLimit-Reset", "4"));
    assertThat(separate.pace()).hasValue(RateLimit.of(50, Duration.ofSeconds(1)));
    assertThat(separate.pause()).isEqualTo(Duration.ofSeconds(4));

    assertThat(reader.read(headers("RateLimit-Policy", "100;w=60")).pace())
        .hasValue(RateLimit.of(100, Duration.ofSeconds(60)));
    assertThat(
            reader.read(headers("RateLimit", "limit=10, remaining=0, reset=5")).pause())
        .isEqualTo(Duration.ofSeconds(5));
  }

  @Test
  void xFamilyCountsPerItsWindowAndResetMayBeUnixTime() {
    RateLimitAdvice delta = reader.read(headers(
        "X-RateLimit-Limit", "300", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "12"));
    assertThat(delta.pace()).hasValue(RateLimit.of(300, Duration.ofSeconds(1)));
    assertThat(delta.pause()).isEqualTo(Duration.ofSeconds(12));

    RateLimitAdvice unix = reader.read(headers(
        "X-RateLimit-Remaining",
        "0",
        "X-RateLimit-Reset",
        Long.toString(NOW.getEpochSecond() + 30)));
    assertThat(unix.pause()).isEqualTo(Duration.ofSeconds(30));

    RateLimitHeaders hourly =
        new RateLimitHeaders(Clock.fixed(NOW, ZoneOffset.UTC), Duration.ofHours(1));
    assertThat(hourly.read(headers("X-RateLimit-Limit", "5000")).pace())
        .hasValue(RateLimit.of(5000, Duration.ofHours(1)));
  }

  @Test
  void retryAfterOnAnyResponseIsAPause() {
    assertThat(reader.read(headers("Retry-After", "3")).pause()).isEqualTo(Duration.ofSeconds(3));
    assertThat(
            reader.read(headers("Retry-After", "Mon, 23 Nov 2026 08:00:09 GMT")).pause())
        .isEqualTo(Duration.ofSeconds(9));
  }

  @Test
  void malformedValuesAreIgnoredNeverThrown() {
    String[][] bad = {
      {"RateLimit-Policy", "\"a\";q=ten;w=1"},
      {"RateLimit-Policy", "\"a\";q=10;w=0"},
      {"RateLimit-Policy", "\"a\";q=-5;w=1"},
      {"RateLimit-Policy", "\"unterminated;q=10;w=1"},
      {"RateLimit-Policy", ";;;,,,==="},
      {"RateLimit-Policy", "\"a\";q=99999999999999999999;w=1"},
      {"RateLimit", "\"a\";r=0;t=soon"},
      {"RateLimit", "\"a\";r=;t="},
      {"RateLimit-Limit", "0"},
      {"RateLimit-Limit", "1e3"},
      {"X-RateLimit-Limit", "lots"},
      {"X-RateLimit-Limit", "-1"},
      {"X-RateLimit-Remaining", "0"},
      {"X-RateLimit-Reset", "12"},
      {"Retry-After", "soon"},
      {"Retry-After", "-3"},
      {"Retry-After", "1.5"},
      {"Retry-After", "Mon, 32 Nov 2026 08:00:09 GMT"},
      {"Retry-After", ""},
    };
    for (String[] header : bad) {
      assertThat(reader.read(headers(header[0], header[1])))
          .as("%s: %s", header[0], header[1])
          .isEqualTo(RateLimitAdvice.NONE);
    }
  }

  @Test
  void noRateLimitHeadersIsNoAdvice() {
    assertThat(reader.read(headers("Content-Type", "text/plain"))).isSameAs(RateLimitAdvice.NONE);
  }
}
