package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.rules.ResourcePattern;
import dev.sluice.store.PermitStore;
import java.util.Optional;

/**
 * A named limiter and the path pattern it guards (empty: used only by wrapped handlers); with
 * global scope, also the shared store whose leases cap the permits across every node; and the
 * config it was built from (per-request keys such as the queue key are read from it).
 */
record LimiterEntry(String name, Optional<ResourcePattern> pattern, ConcurrencyLimiter limiter,
    Optional<PermitStore> global, LimiterConfig config) {

  boolean guards(String path) {
    return pattern.isPresent() && pattern.get().matches(path);
  }
}
