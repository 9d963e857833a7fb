package dev.sluice.demo;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.limit.LimitState;
import dev.sluice.javalin.RuleSnapshot;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.javalin.SluicePlugin;
import dev.sluice.rules.Rule;
import dev.sluice.store.StoreHealth;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The body of {@code GET /sluice}: every limiter (limits, in flight, queued, counts) and every rate
 * rule in force. Built as plain maps so the JSON does not depend on how a mapper treats records and
 * {@link java.time.Duration}s; durations are in milliseconds.
 */
final class SluiceStatus {

  private SluiceStatus() {}

  /** @param peers limiters of a {@link LimiterPeer} to list beside Sluice's (measurement aid) */
  static Map<String, Object> of(boolean enabled, SluicePlugin sluice, List<Map<String, Object>> peers) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("enabled", enabled);
    List<Map<String, Object>> limiters = new ArrayList<>();
    sluice.snapshots().forEach(s -> limiters.add(limiter(s, sluice)));
    limiters.addAll(peers);
    body.put("limiters", limiters);
    body.put(
        "rules",
        sluice.ruleSnapshots().stream().map(SluiceStatus::rule).toList());
    // the shared store (Redis) when sluice.redis.uri is set: up, down, probing or settling
    body.put("store", sluice.storeHealth().map(SluiceStatus::store).orElse(null));
    return body;
  }

  private static Map<String, Object> store(StoreHealth health) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("state", health.state());
    m.put("description", health.description());
    m.put("degradedDecisions", health.degradedDecisions());
    m.put("lostStates", health.lostStates());
    return m;
  }

  private static Map<String, Object> limiter(ConcurrencySnapshot s, SluicePlugin sluice) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("name", s.name());
    m.put("limit", s.limit());
    m.put("maxQueue", s.maxQueue());
    m.put("queueTimeoutMillis", s.queueTimeout().toMillis());
    m.put("inFlight", s.inFlight()); // this node's running requests
    // a global limiter: the leases every node holds together (absent for a local limiter)
    sluice.limiter(s.name()).flatMap(l -> {
      java.util.OptionalInt held = l.clusterLeases();
      return held.isPresent() ? java.util.Optional.of(held.getAsInt()) : java.util.Optional.empty();
    }).ifPresent(held -> m.put("clusterLeases", held));
    m.put("queued", s.queued());
    m.put("admitted", s.admitted());
    m.put("queuedTotal", s.queuedTotal());
    m.put("rejectedQueueFull", s.rejectedQueueFull());
    m.put("rejectedQueueTimeout", s.rejectedQueueTimeout());
    m.put("cancelled", s.cancelled());
    m.put("rejectedShutdown", s.rejectedShutdown());
    m.put("meanQueueWaitMillis", mean(s.queueWaitTotalNanos(), s.queueWaitCount()));
    m.put("maxQueueWaitMillis", s.queueWaitMaxNanos() / 1e6);
    m.put("meanServiceMillis", mean(s.serviceTotalNanos(), s.serviceCount()));
    m.put("maxServiceMillis", s.serviceMaxNanos() / 1e6);
    m.put("shutdown", s.shutdown());
    m.put("limitSource", limitSource(s.limitState()));
    sluice.limiter(s.name()).map(ConcurrencyLimiter::queueSnapshot)
        .ifPresent(q -> m.put("queue", queue(q)));
    return m;
  }

  /** Who waits by class and key, and the queue-full answers with a finer reason. */
  private static Map<String, Object> queue(QueueSnapshot q) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("critical", q.critical());
    m.put("normal", q.normal());
    m.put("sheddable", q.sheddable());
    m.put("keys", q.keys());
    m.put("rejectedKeyCap", q.rejectedKeyCap());
    m.put("displaced", q.displaced());
    return m;
  }

  private static Map<String, Object> rule(RuleSnapshot snapshot) {
    Rule r = snapshot.rule();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("id", r.id());
    m.put("resource", r.resource().toString());
    m.put("method", r.method().orElse("*"));
    m.put("actor", r.actor().id());
    m.put("limit", r.limit().limit());
    m.put("periodMillis", r.limit().period().toMillis());
    m.put("burst", r.limit().burst());
    m.put("algorithm", r.algorithm().id());
    m.put("scope", r.scope().id());
    m.put("shadow", r.shadow());
    m.put("allowed", snapshot.allowed());
    m.put("rejected", snapshot.rejected());
    m.put("shadowRejected", snapshot.shadowRejected());
    return m;
  }

  /** Where the limit comes from and, when adaptive, what it decides from; no NaN in the JSON. */
  private static Map<String, Object> limitSource(LimitState state) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("strategy", state.strategy());
    m.put("exactLimit", state.exactLimit());
    m.put("minLimit", state.minLimit());
    m.put("maxLimit", state.maxLimit());
    putIfKnown(m, "cpu", state.cpu());
    putIfKnown(m, "targetCpu", state.targetCpu());
    putIfKnown(m, "serviceMillis", state.serviceMillis());
    putIfKnown(m, "targetServiceMillis", state.targetServiceMillis());
    return m;
  }

  private static void putIfKnown(Map<String, Object> m, String key, double value) {
    if (!Double.isNaN(value)) {
      m.put(key, value);
    }
  }

  private static double mean(long totalNanos, long count) {
    return count == 0 ? 0 : totalNanos / 1e6 / count;
  }
}
