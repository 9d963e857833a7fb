package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.rate.RateLimit;
import java.net.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.Tag;

/**
 * Bad response headers at scale: whatever a server writes in {@code Retry-After} and the
 * rate-limit fields, the client reads advice or nothing, never an exception, and never a pause
 * longer than {@link RetryAfter#MAX}. The corpus
 * (src/test/resources/dev/sluice/client/ResponseHeadersFuzzTestInputs/) is replayed as a plain test
 * without JAZZER_FUZZ=1.
 */
@Tag("fuzz")
class ResponseHeadersFuzzTest {

  private static final Clock WALL =
      Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

  private static final RateLimitHeaders HEADERS = new RateLimitHeaders(WALL, Duration.ofSeconds(1));

  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void retryAfterIsADelayUpToTheCapOrAbsent(byte[] data) {
    String value = new String(data, StandardCharsets.UTF_8);

    Optional<Duration> delay = RetryAfter.parse(value, WALL);

    delay.ifPresent(d -> {
      assertThat(d.isNegative()).isFalse();
      assertThat(d).isLessThanOrEqualTo(RetryAfter.MAX);
      // the delay written back as delay-seconds reads as itself
      if (d.toNanosPart() == 0) {
        assertThat(RetryAfter.parse(Long.toString(d.toSeconds()), WALL)).hasValue(d);
      }
    });
  }

  /** One header a line, {@code Name: value}; a line without a name is skipped. */
  @FuzzTest(maxDuration = "10m", maxExecutions = 1_000_000)
  void rateLimitFieldsAreAdviceOrNoneNeverThrown(byte[] data) {
    Map<String, List<String>> fields = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (String line : new String(data, StandardCharsets.UTF_8).split("\n", -1)) {
      int colon = line.indexOf(':');
      String name = colon < 0 ? "" : line.substring(0, colon).trim();
      if (!name.isEmpty()) { // no response has a field without a name (HttpHeaders refuses one)
        fields
            .computeIfAbsent(name, n -> new ArrayList<>())
            .add(line.substring(colon + 1).trim());
      }
    }

    RateLimitAdvice advice = HEADERS.read(HttpHeaders.of(fields, (name, value) -> true));

    assertThat(advice.pause().isNegative()).isFalse();
    assertThat(advice.pause()).isLessThanOrEqualTo(RetryAfter.MAX);
    advice.pace().map(RateLimit::limit).ifPresent(limit -> assertThat(limit).isPositive());
  }
}
