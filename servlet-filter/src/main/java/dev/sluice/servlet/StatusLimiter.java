package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.PathLimiter;
import dev.sluice.http.StatusReport;

/**
 * One of the filter's limiters as the status shows it. The filter counts every request as one unit
 * ({@code cost=1}), so its costs are what the plugin shows for {@code cost=1}: nothing tracked,
 * never above the ceiling.
 */
final class StatusLimiter implements StatusReport.Limiter {

  private final PathLimiter limiter;

  StatusLimiter(PathLimiter limiter) {
    this.limiter = limiter;
  }

  @Override
  public ConcurrencyLimiter limiter() {
    return limiter.limiter();
  }

  @Override
  public LimiterConfig config() {
    return limiter.config();
  }

  private static final StatusReport.Costs UNIT = new StatusReport.Costs(1, 0, 0, 0);

  @Override
  public StatusReport.Costs costs() {
    return UNIT;
  }
}
