package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.rules.ResourcePattern;
import java.util.Optional;

/** A named limiter and the path pattern it guards (empty: used only by wrapped handlers). */
record LimiterEntry(String name, Optional<ResourcePattern> pattern, ConcurrencyLimiter limiter) {

  boolean guards(String path) {
    return pattern.isPresent() && pattern.get().matches(path);
  }
}
