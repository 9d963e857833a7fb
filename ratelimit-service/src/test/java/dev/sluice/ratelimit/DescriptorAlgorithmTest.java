package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A descriptor's {@code algorithm} (Sluice's extension of envoy/ratelimit's file) counts its limit
 * with another of Sluice's algorithms; without it the windows stay envoy/ratelimit's. What a bad
 * name is told is in {@link DescriptorConfigTest}.
 */
class DescriptorAlgorithmTest {

  private static final String YAML = """
      domain: api
      descriptors:
        - key: window
          rate_limit:
            unit: second
            requests_per_unit: 10
        - key: bucket
          rate_limit:
            unit: second
            requests_per_unit: 10
            algorithm: token-bucket
        - key: sliding
          rate_limit:
            unit: minute
            requests_per_unit: 6
            algorithm: sliding-log
      """;

  /** Half a second into a second: envoy/ratelimit's window ends in 500 ms. */
  private static final Instant HALF_SECOND = RlsFixture.MIDNIGHT.plusMillis(500);

  private RlsFixture rls;

  @AfterEach
  void stop() throws Exception {
    if (rls != null) {
      rls.close();
    }
  }

  @Test
  void aTokenBucketRefillsWithinTheSecondWhereTheWindowWaitsForTheNext() throws Exception {
    rls = new RlsFixture(YAML, HALF_SECOND);
    RateLimitRequest window = request("api", descriptor("window", "a"));
    RateLimitRequest bucket = request("api", descriptor("bucket", "a"));
    assertThat(rls.ask(window, 10).getOverallCode()).isEqualTo(Code.OK);
    assertThat(rls.ask(bucket, 10).getOverallCode()).isEqualTo(Code.OK);
    assertThat(rls.ask(window).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(rls.ask(bucket).getOverallCode()).isEqualTo(Code.OVER_LIMIT);

    rls.time.advance(Duration.ofMillis(100)); // a token back; the window still has 400 ms to run

    assertThat(rls.ask(window).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    RateLimitResponse refilled = rls.ask(bucket);
    assertThat(refilled.getOverallCode()).isEqualTo(Code.OK);
    assertThat(refilled.getStatuses(0).getLimitRemaining()).isZero();
    assertThat(refilled.getStatuses(0).getDurationUntilReset().getSeconds())
        .as("the bucket is full again 1 s after its last token went, rounded up")
        .isEqualTo(1);
  }

  @Test
  void aSlidingLogNeverLetsMoreThanTheLimitThroughAnyMinute() throws Exception {
    rls = new RlsFixture(YAML, RlsFixture.MIDNIGHT.plusSeconds(50));
    RateLimitRequest sliding = request("api", descriptor("sliding", "a"));
    assertThat(rls.ask(sliding, 6).getOverallCode()).isEqualTo(Code.OK);

    rls.time.advance(Duration.ofSeconds(20)); // a new minute of the epoch, but not 60 s later

    assertThat(rls.ask(sliding).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    rls.time.advance(Duration.ofSeconds(40));
    assertThat(rls.ask(sliding).getOverallCode()).isEqualTo(Code.OK);
  }

  @Test
  void theFileSaysWhichAlgorithmEachLimitUses() throws Exception {
    DescriptorConfig config = DescriptorConfig.parse("limits.yaml", YAML);
    assertThat(limitOf(config, "window").algorithm()).isEqualTo(Algorithm.FIXED_WINDOW);
    assertThat(limitOf(config, "bucket").algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
    assertThat(limitOf(config, "sliding").algorithm()).isEqualTo(Algorithm.SLIDING_LOG);
  }

  private static DescriptorLimit limitOf(DescriptorConfig config, String key) {
    return config.domain("api").child(key).limit();
  }
}
