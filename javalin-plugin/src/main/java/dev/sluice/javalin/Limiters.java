package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.rules.ResourcePattern;
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
  private volatile Map<String, Settings.LimiterSettings> current;

  private Limiters(List<LimiterEntry> entries, Map<String, Settings.LimiterSettings> settings) {
    this.entries = List.copyOf(entries);
    Map<String, LimiterEntry> map = new LinkedHashMap<>();
    entries.forEach(e -> map.put(e.name(), e));
    this.byName = map;
    this.current = settings;
  }

  static Limiters build(Map<String, Settings.LimiterSettings> settings, NanoClock clock,
      Scheduler scheduler, Executor executor, ConcurrencyListener listener,
      Optional<PermitStore> store) {
    List<LimiterEntry> entries = new ArrayList<>();
    for (Settings.LimiterSettings s : settings.values()) {
      boolean global = s.scope().equals("global");
      if (global && store.isEmpty()) {
        throw new SluiceConfigException(SluiceProperties.LIMITERS + s.name() + ".scope", "global",
            "global scope needs a shared store: set " + SluiceKeys.REDIS_URI);
      }
      Optional<ResourcePattern> pattern;
      try {
        pattern = s.path().map(ResourcePattern::parse);
      } catch (IllegalArgumentException e) {
        throw new SluiceConfigException(SluiceProperties.LIMITERS + s.name() + ".path",
            s.path().orElse(""), e.getMessage());
      }
      ConcurrencyLimiter.Builder builder = ConcurrencyLimiter.builder(s.name())
          .maxConcurrency(s.maxConcurrency())
          .maxQueue(s.maxQueue())
          .queueTimeout(s.queueTimeout())
          .clock(clock)
          .scheduler(scheduler)
          .executor(executor)
          .listener(listener);
      if (global) {
        // permits are leases in the store, queued here and in the cluster-wide line (core)
        builder.permitStore(store.get());
      }
      entries.add(new LimiterEntry(s.name(), pattern, builder.build()));
      log.info("Sluice limiter '{}' on {}: max-concurrency={}, max-queue={}, queue-timeout={},"
          + " scope={}", s.name(), s.path().orElse("(wrapped handlers only)"), s.maxConcurrency(),
          s.maxQueue(), s.queueTimeout(), s.scope());
    }
    return new Limiters(entries, Map.copyOf(settings));
  }

  Optional<LimiterEntry> forPath(String path) {
    for (LimiterEntry e : entries) {
      if (e.guards(path)) {
        return Optional.of(e);
      }
    }
    return Optional.empty();
  }

  Optional<LimiterEntry> byName(String name) {
    return Optional.ofNullable(byName.get(name));
  }

  List<LimiterEntry> all() {
    return entries;
  }

  /**
   * Applies re-read settings: max-concurrency and max-queue change at once; other changes (path,
   * queue-timeout, new limiters) need a restart and are reported as such.
   */
  synchronized void apply(Map<String, Settings.LimiterSettings> next) {
    for (Settings.LimiterSettings n : next.values()) {
      Settings.LimiterSettings old = current.get(n.name());
      LimiterEntry entry = byName.get(n.name());
      if (old == null || entry == null) {
        log.warn("Sluice limiter '{}' is new in the reloaded properties; it takes effect after a restart",
            n.name());
        continue;
      }
      if (n.maxConcurrency() != old.maxConcurrency()) {
        entry.limiter().setMaxConcurrency(n.maxConcurrency());
        log.info("Sluice limiter '{}': max-concurrency {} -> {}", n.name(), old.maxConcurrency(),
            n.maxConcurrency());
      }
      if (n.maxQueue() != old.maxQueue()) {
        entry.limiter().setMaxQueue(n.maxQueue());
        log.info("Sluice limiter '{}': max-queue {} -> {}", n.name(), old.maxQueue(), n.maxQueue());
      }
      if (!n.queueTimeout().equals(old.queueTimeout()) || !n.path().equals(old.path())) {
        log.warn("Sluice limiter '{}': path or queue-timeout changed; takes effect after a restart",
            n.name());
      }
    }
    Map<String, Settings.LimiterSettings> merged = new LinkedHashMap<>(current);
    next.forEach((name, s) -> {
      if (current.containsKey(name)) {
        Settings.LimiterSettings old = current.get(name);
        merged.put(name, new Settings.LimiterSettings(name, old.path(), s.maxConcurrency(),
            s.maxQueue(), old.queueTimeout(), old.scope()));
      }
    });
    current = Map.copyOf(merged);
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
