package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.DoorLimiter;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.QueueCallers;
import dev.sluice.http.StatusReport;
import dev.sluice.request.ResourcePattern;
import java.util.Optional;

/**
 * A named limiter and the path pattern it guards (empty: used only by wrapped handlers), and the
 * settings in force (per-request keys such as the queue key are read from them; a reload replaces
 * them). A limiter with global scope is the core's global limiter (leases in the shared store),
 * used the same way.
 */
final class LimiterEntry implements StatusReport.Limiter, DoorLimiter {

  private final String name;
  private final Optional<ResourcePattern> pattern;
  private final ConcurrencyLimiter limiter;
  private final QueueCallers callers;
  private volatile LimiterConfig config;
  private volatile RequestCost cost;
  private final CostCeiling ceiling;
  /** The {@code deadline-header} in force, or null: read per request, so kept out of the map. */
  private volatile String deadlineHeader;

  LimiterEntry(
      String name,
      Optional<ResourcePattern> pattern,
      ConcurrencyLimiter limiter,
      LimiterConfig config,
      QueueCallers callers,
      Warnings warnings) {
    this.name = name;
    this.pattern = pattern;
    this.limiter = limiter;
    this.config = config;
    this.callers = callers;
    this.ceiling = new CostCeiling(name, config.maxConcurrency(), warnings);
    this.cost = cost(config, ceiling);
    ceiling.inForce(config.maxConcurrency(), cost);
    this.deadlineHeader = config.deadlineHeader().orElse(null);
  }

  /** The header carrying a request's own deadline, or null when the limiter reads none. */
  String deadlineHeader() {
    return deadlineHeader;
  }

  /** How many units of the limit a request takes. */
  RequestCost cost() {
    return cost;
  }

  /** The costs seen against the ceiling of the limit. */
  CostCeiling costCeiling() {
    return ceiling;
  }

  @Override
  public StatusReport.Costs costs() {
    RequestCost c = cost;
    return new StatusReport.Costs(
        c.scale(),
        ceiling.largestUnits(),
        c.declares() ? ceiling.largestDeclared() : 0,
        ceiling.aboveCeiling());
  }

  private static RequestCost cost(LimiterConfig config, CostCeiling ceiling) {
    return RequestCost.of(config.cost(), config.costScale(), config.queue(), ceiling);
  }

  @Override
  public String name() {
    return name;
  }

  Optional<ResourcePattern> pattern() {
    return pattern;
  }

  @Override
  public ConcurrencyLimiter limiter() {
    return limiter;
  }

  @Override
  public QueueCallers callers() {
    return callers;
  }

  /** The settings in force: those at start-up, as changed by reloads. */
  @Override
  public LimiterConfig config() {
    return config;
  }

  void inForce(LimiterConfig next) {
    LimiterConfig before = this.config;
    this.config = next;
    this.deadlineHeader = next.deadlineHeader().orElse(null);
    boolean costChanged =
        !before.cost().equals(next.cost()) || before.costScale() != next.costScale();
    if (costChanged || !before.queue().equals(next.queue())) {
      this.cost = cost(next, ceiling);
    }
    if (costChanged || before.maxConcurrency() != next.maxConcurrency()) {
      ceiling.inForce(next.maxConcurrency(), cost);
    }
  }

  @Override
  public boolean guards(String path) {
    return pattern.isPresent() && pattern.get().matches(path);
  }
}
