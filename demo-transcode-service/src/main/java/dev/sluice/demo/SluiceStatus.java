package dev.sluice.demo;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.javalin.SluicePlugin;
import dev.sluice.rules.Rule;
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

  static Map<String, Object> of(boolean enabled, SluicePlugin sluice) {
    Map<String, Object> body = new LinkedHashMap<>();
    body.put("enabled", enabled);
    body.put("limiters", sluice.snapshots().stream().map(s -> limiter(s, sluice)).toList());
    body.put(
        "rules",
        sluice.rateRules().map(r -> r.rules().rules().stream().map(SluiceStatus::rule).toList()).orElse(List.of()));
    return body;
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
    return m;
  }

  private static Map<String, Object> rule(Rule r) {
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
    return m;
  }

  private static double mean(long totalNanos, long count) {
    return count == 0 ? 0 : totalNanos / 1e6 / count;
  }
}
