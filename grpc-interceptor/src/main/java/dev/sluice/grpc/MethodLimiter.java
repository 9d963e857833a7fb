package dev.sluice.grpc;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.QueueCallers;
import dev.sluice.request.ResourcePattern;

/**
 * A named limiter and the gRPC methods it guards, by their HTTP/2 path ({@code
 * /package.Service/Method}, {@code /package.Service/*}), with how its callers queue.
 */
final class MethodLimiter {

  private final LimiterConfig config;
  private final ResourcePattern pattern;
  private final ConcurrencyLimiter limiter;
  private final QueueCallers callers;

  MethodLimiter(LimiterConfig config, ResourcePattern pattern, ConcurrencyLimiter limiter) {
    this.config = config;
    this.pattern = pattern;
    this.limiter = limiter;
    this.callers = new QueueCallers(config.queue());
  }

  String name() {
    return config.name();
  }

  LimiterConfig config() {
    return config;
  }

  ConcurrencyLimiter limiter() {
    return limiter;
  }

  QueueCallers callers() {
    return callers;
  }

  boolean guards(String path) {
    return pattern.matches(path);
  }
}
