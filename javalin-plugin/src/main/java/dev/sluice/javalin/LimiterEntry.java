package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.request.ResourcePattern;
import java.util.Optional;

/**
 * A named limiter and the path pattern it guards (empty: used only by wrapped handlers), and the
 * config it was built from (per-request keys such as the queue key are read from it). A limiter
 * with global scope is the core's global limiter (leases in the shared store), used the same way.
 */
record LimiterEntry(String name, Optional<ResourcePattern> pattern, ConcurrencyLimiter limiter,
    LimiterConfig config, QueueCallers callers) {

  boolean guards(String path) {
    return pattern.isPresent() && pattern.get().matches(path);
  }
}
