package dev.sluice.ratelimit.simulated;

import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import java.time.Duration;

/**
 * The proxy's side of one strategy, as Envoy's rate_limit_quota filter documents it: a blanket
 * rule, requests per time unit (here: a window of one unit from when the strategy was applied) or
 * a token bucket that starts full and adds {@code tokens_per_fill} every {@code fill_interval}.
 */
public final class QuotaEnforcer {

  private final RateLimitStrategy strategy;
  private final long startNanos;
  private long windowStart;
  private long used;
  private long tokens;
  private long lastFill;

  public QuotaEnforcer(RateLimitStrategy strategy, long nowNanos) {
    this.strategy = strategy;
    this.startNanos = nowNanos;
    this.windowStart = nowNanos;
    this.lastFill = nowNanos;
    this.tokens = strategy.getTokenBucket().getMaxTokens();
  }

  public RateLimitStrategy strategy() {
    return strategy;
  }

  /** Whether one request at {@code now} passes; counts it when it does. */
  public boolean tryAcquire(long now) {
    return switch (strategy.getStrategyCase()) {
      case BLANKET_RULE -> strategy.getBlanketRule() == RateLimitStrategy.BlanketRule.ALLOW_ALL;
      case REQUESTS_PER_TIME_UNIT -> perTimeUnit(now);
      case TOKEN_BUCKET -> fromBucket(now);
      // an unset strategy allows all (RateLimitStrategy's documentation)
      default -> true;
    };
  }

  private boolean perTimeUnit(long now) {
    long limit = strategy.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
    long unit = unitNanos(strategy.getRequestsPerTimeUnit().getTimeUnit());
    if (now - windowStart >= unit) {
      windowStart = startNanos + (now - startNanos) / unit * unit;
      used = 0;
    }
    if (used < limit) {
      used++;
      return true;
    }
    return false;
  }

  private boolean fromBucket(long now) {
    var bucket = strategy.getTokenBucket();
    long interval = nanos(bucket.getFillInterval());
    long fills = (now - lastFill) / interval;
    if (fills > 0) {
      long perFill = bucket.hasTokensPerFill() ? bucket.getTokensPerFill().getValue() : 1;
      tokens = Math.min(bucket.getMaxTokens(), tokens + fills * perFill);
      lastFill += fills * interval;
    }
    if (tokens > 0) {
      tokens--;
      return true;
    }
    return false;
  }

  /** A protobuf duration in nanoseconds. */
  static long nanos(com.google.protobuf.Duration d) {
    return Duration.ofSeconds(d.getSeconds(), d.getNanos()).toNanos();
  }

  /** The length of {@code unit} in nanoseconds. */
  public static long unitNanos(RateLimitUnit unit) {
    return switch (unit) {
      case SECOND -> Duration.ofSeconds(1).toNanos();
      case MINUTE -> Duration.ofMinutes(1).toNanos();
      case HOUR -> Duration.ofHours(1).toNanos();
      case DAY -> Duration.ofDays(1).toNanos();
      default -> throw new IllegalArgumentException("unit " + unit);
    };
  }
}
