package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyListener;
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
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The plugin's named limiters, in declaration order (the first whose pattern matches guards a path). */
final class Limiters {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);

  private final List<LimiterEntry> entries;
  private final Map<String, LimiterEntry> byName;
  private volatile Map<String, LimiterConfig> current;

  private Limiters(List<LimiterEntry> entries, Map<String, LimiterConfig> settings) {
    this.entries = List.copyOf(entries);
    Map<String, LimiterEntry> map = new LinkedHashMap<>();
    entries.forEach(e -> map.put(e.name(), e));
    this.byName = map;
    this.current = settings;
  }

  static Limiters build(Map<String, LimiterConfig> configs, NanoClock clock,
      Scheduler scheduler, Executor executor, ConcurrencyListener listener,
      Optional<PermitStore> store) {
    List<LimiterEntry> entries = new ArrayList<>();
    for (LimiterConfig c : configs.values()) {
      boolean global = c.scope() == Scope.GLOBAL;
      if (global && store.isEmpty()) {
        throw new SluiceConfigException(c.property(LimiterKeys.SCOPE), "global",
            c.source(LimiterKeys.SCOPE),
            "global scope needs a shared store: set " + SluiceKeys.REDIS_URI.name());
      }
      // the path was checked when parsed or set
      Optional<ResourcePattern> pattern = c.path().map(ResourcePattern::parse);
      ConcurrencyLimiter.Builder builder = c.applyTo(ConcurrencyLimiter.builder(c.name()))
          .clock(clock)
          .scheduler(scheduler)
          .executor(executor)
          .listener(listener);
      if (global) {
        // permits are leases in the store, queued here and in the cluster-wide line (core)
        builder.permitStore(store.get());
      }
      ConcurrencyLimiter limiter = builder.build();
      QueueSettings queue = QueueSettings.of(c);
      entries.add(new LimiterEntry(c.name(), pattern, limiter, c, new QueueCallers(queue)));
      log.info("Sluice limiter on {}: {}, queue {}", c.path().orElse("(wrapped handlers only)"), c,
          queue.describe());
      List<String> ignored = QueueSettings.ignoredWithFifo(c);
      if (!ignored.isEmpty()) {
        log.warn("Sluice limiter '{}' has a FIFO queue: {} only apply with queue=fair; ignored",
            c.name(), ignored);
      }
    }
    return new Limiters(entries, Map.copyOf(configs));
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
   * Applies re-read settings: reloadable keys ({@code max-concurrency}, {@code max-queue}, the
   * limit strategy and its settings, see {@link Key#reloadedBy}) change at once; other changes
   * (path, queue-timeout, reject-early, new limiters) need a restart and are reported as such.
   */
  synchronized void apply(Map<String, LimiterConfig> next) {
    Map<String, LimiterConfig> merged = new LinkedHashMap<>(current);
    for (LimiterConfig n : next.values()) {
      LimiterConfig old = current.get(n.name());
      LimiterEntry entry = byName.get(n.name());
      if (old == null || entry == null) {
        log.warn("Sluice limiter '{}' is new in the reloaded properties; it takes effect after a restart",
            n.name());
        continue;
      }
      LimiterConfig.Builder applied = LimiterConfig.from(old);
      changeQueue(entry, old, n, applied);
      for (Key<?> key : LimiterKeys.ALL) {
        if (QueueSettings.KEYS.contains(key)) {
          continue; // the discipline's keys change together, above
        }
        if (!Objects.equals(old.get(key), n.get(key))) {
          if (key.reloadable()) {
            reload(entry.limiter(), key, n);
            applied.copyValue(key, n);
            log.info("Sluice limiter '{}': {} {} -> {}", n.name(), key.name(), old.get(key),
                n.get(key));
          } else {
            log.warn("Sluice limiter '{}': {} changed; takes effect after a restart", n.name(),
                key.name());
          }
        }
      }
      merged.put(n.name(), applied.build());
    }
    current = Map.copyOf(merged);
  }

  /**
   * A changed discipline (queue, queue-key, max-queue-per-key, priority-header) is applied at once:
   * the queued requests move to the new queue, none is dropped (see {@link QueueCallers#change}).
   */
  private static void changeQueue(LimiterEntry entry, LimiterConfig old, LimiterConfig next,
      LimiterConfig.Builder applied) {
    QueueSettings before = QueueSettings.of(old);
    QueueSettings after = QueueSettings.of(next);
    if (before.equals(after)) {
      return;
    }
    int moved = entry.limiter().snapshot().queued();
    try {
      entry.callers().change(after, entry.limiter());
    } catch (UnsupportedOperationException e) {
      log.warn("Sluice limiter '{}': queue changed; takes effect after a restart ({})",
          entry.name(), e.getMessage());
      return;
    }
    QueueSettings.KEYS.forEach(key -> applied.copyValue(key, next));
    log.info("Sluice limiter '{}': queue {} -> {}; about {} queued requests moved to the new queue",
        entry.name(), before.describe(), after.describe(), moved);
  }

  private static <T> void reload(ConcurrencyLimiter limiter, Key<T> key, LimiterConfig next) {
    key.reload(limiter, next.get(key), next);
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
