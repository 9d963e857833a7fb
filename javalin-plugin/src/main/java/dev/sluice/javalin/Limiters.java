package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Reconfiguration;
import dev.sluice.config.DoorLimiter;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.QueueCallers;
import dev.sluice.config.QueueSettings;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceKeys;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import dev.sluice.store.PermitStore;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The plugin's named limiters, in declaration order (the first whose pattern matches guards a path). */
final class Limiters {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  private final List<LimiterEntry> entries;
  private final Map<String, LimiterEntry> byName;

  private Limiters(List<LimiterEntry> entries) {
    this.entries = List.copyOf(entries);
    Map<String, LimiterEntry> map = new LinkedHashMap<>();
    entries.forEach(e -> map.put(e.name(), e));
    this.byName = map;
  }

  static Limiters build(
      Map<String, LimiterConfig> configs,
      NanoClock clock,
      Scheduler scheduler,
      Executor executor,
      ConcurrencyListener listener,
      Optional<PermitStore> store,
      Warnings warnings) {
    List<LimiterEntry> entries = new ArrayList<>();
    for (LimiterConfig c : configs.values()) {
      boolean global = c.scope() == Scope.GLOBAL;
      if (global && store.isEmpty()) {
        throw new SluiceConfigException(
            c.property(LimiterKeys.SCOPE),
            "global",
            c.source(LimiterKeys.SCOPE),
            "global scope needs a shared store: set " + SluiceKeys.REDIS_URI.name());
      }
      // the path was checked when parsed or set
      Optional<ResourcePattern> pattern = c.path().map(ResourcePattern::parse);
      ConcurrencyLimiter.Builder builder = ConcurrencyLimiter.builder(c.name())
          .spec(c.spec())
          .clock(clock)
          .scheduler(scheduler)
          .executor(executor)
          .listener(listener);
      if (global) {
        // permits are leases in the store, queued here and in the cluster-wide line (core)
        builder.permitStore(store.get());
      }
      ConcurrencyLimiter limiter = builder.build();
      QueueSettings queue = c.queue();
      entries.add(
          new LimiterEntry(c.name(), pattern, limiter, c, new QueueCallers(queue), warnings));
      log.info(
          "Sluice limiter on {}: {}, queue {}",
          c.path().orElse("(wrapped handlers only)"),
          c,
          queue.describe());
      List<String> ignored = QueueSettings.ignoredWithFifo(c);
      if (!ignored.isEmpty()) {
        warnings.warn(
            "fifo " + c.name(),
            "Sluice limiter '" + c.name() + "' has a FIFO queue: " + ignored
                + " only apply with queue=fair; ignored");
      }
    }
    return new Limiters(entries);
  }

  /** The limiter guarding {@code path}, or null (asked on every request: no Optional, no iterator). */
  LimiterEntry forPath(String path) {
    return DoorLimiter.first(entries, path);
  }

  Optional<LimiterEntry> byName(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  List<LimiterEntry> all() {
    return entries;
  }

  /**
   * Applies re-read settings. The core limiter applies what its spec says (see {@link
   * ConcurrencyLimiter#reconfigure}: limits, strategy, queue discipline, timeouts, reject-early)
   * and reports it; the plugin's own keys follow: the queue key and priority header take effect
   * for the next request, a changed {@code path} or {@code scope}, or a new limiter, needs a
   * restart and is logged as such. The settings in force (what {@code /sluice} shows) are what
   * was applied.
   */
  synchronized void apply(Map<String, LimiterConfig> next, Warnings warnings) {
    for (LimiterConfig n : next.values()) {
      LimiterEntry entry = byName.get(n.name());
      if (entry == null) {
        warnings.warn(
            "restart " + n.name(),
            "Sluice limiter '" + n.name()
                + "' is new in the reloaded properties; it takes effect after a restart");
        continue;
      }
      LimiterConfig old = entry.config();
      n.restartChanges(old)
          .forEach(change -> warnings.warn(
              "restart " + n.name(),
              "Sluice limiter '" + n.name() + "': " + change + "; takes effect after a restart"));
      LimiterConfig inForce = n.keepingPlaceOf(old);
      Reconfiguration done = entry.limiter().reconfigure(n.spec());
      done.applied().forEach(change -> log.info("Sluice limiter '{}': {}", n.name(), change));
      done.needsRestart()
          .forEach(change -> warnings.warn(
              "restart " + n.name(),
              "Sluice limiter '" + n.name() + "': " + change + "; takes effect after a restart"));
      QueueSettings before = old.queue();
      QueueSettings after = n.queue();
      if (!before.equals(after)) {
        entry.callers().change(after);
        log.info("Sluice limiter '{}': requests now queue as {}", n.name(), after.describe());
      }
      entry.inForce(done.needsRestart().isEmpty() ? inForce : old);
    }
  }

  void shutdown() {
    entries.forEach(e -> e.limiter().shutdown());
  }

  /** Waits for in-flight requests of every limiter, up to one shared deadline. */
  boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean drained = true;
    for (LimiterEntry e : entries) {
      long left = Math.max(0, deadline - System.nanoTime());
      drained &= e.limiter().awaitDrained(Duration.ofNanos(left));
    }
    return drained;
  }
}
