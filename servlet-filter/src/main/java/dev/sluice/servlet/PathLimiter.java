package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.QueueCallers;
import dev.sluice.request.ResourcePattern;

/** A named limiter and the request paths it guards, with how its callers queue. */
final class PathLimiter {

  private final LimiterConfig config;
  private final ResourcePattern pattern;
  private final ConcurrencyLimiter limiter;
  private final QueueCallers callers;

  PathLimiter(LimiterConfig config, ConcurrencyLimiter limiter) {
    this.config = config;
    this.pattern = ResourcePattern.parse(config.path().orElseThrow()); // checked when built
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
