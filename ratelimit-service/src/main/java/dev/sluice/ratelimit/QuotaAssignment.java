package dev.sluice.ratelimit;

import com.google.protobuf.UInt32Value;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.BlanketRule;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy.RequestsPerTimeUnit;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.envoyproxy.envoy.type.v3.TokenBucket;
import java.time.Duration;

/**
 * The strategy a proxy is told to enforce for its share of a bucket's quota: {@code ALLOW_ALL} for
 * an unlimited quota, {@code DENY_ALL} for a share of 0, {@code requests_per_time_unit} when the
 * quota's period is one second, minute, hour or day, else a {@code token_bucket} that holds the
 * share and refills it every period.
 */
final class QuotaAssignment {

  private static final long MAX_UINT32 = 0xFFFF_FFFFL;

  private QuotaAssignment() {}

  static RateLimitStrategy strategy(QuotaRate rate, long share) {
    if (rate.unlimited()) {
      return RateLimitStrategy.newBuilder()
          .setBlanketRule(BlanketRule.ALLOW_ALL)
          .build();
    }
    if (share <= 0) {
      return RateLimitStrategy.newBuilder().setBlanketRule(BlanketRule.DENY_ALL).build();
    }
    RateLimitUnit unit = unit(rate.period());
    if (unit != null) {
      return RateLimitStrategy.newBuilder()
          .setRequestsPerTimeUnit(
              RequestsPerTimeUnit.newBuilder().setRequestsPerTimeUnit(share).setTimeUnit(unit))
          .build();
    }
    // token_bucket's counts are uint32: a larger share is capped there
    int tokens = (int) Math.min(share, MAX_UINT32);
    return RateLimitStrategy.newBuilder()
        .setTokenBucket(TokenBucket.newBuilder()
            .setMaxTokens(tokens)
            .setTokensPerFill(UInt32Value.of(tokens))
            .setFillInterval(Protos.duration(rate.period())))
        .build();
  }

  static RateLimitUnit unit(Duration period) {
    if (period.equals(Duration.ofSeconds(1))) {
      return RateLimitUnit.SECOND;
    }
    if (period.equals(Duration.ofMinutes(1))) {
      return RateLimitUnit.MINUTE;
    }
    if (period.equals(Duration.ofHours(1))) {
      return RateLimitUnit.HOUR;
    }
    if (period.equals(Duration.ofDays(1))) {
      return RateLimitUnit.DAY;
    }
    return null;
  }
}
