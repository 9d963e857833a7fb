package dev.sluice.http;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.config.LimiterConfig;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.Rule;
import dev.sluice.store.StoreHealth;
import dev.sluice.store.Stores;
import java.time.Duration;
import java.util.List;
import java.util.OptionalInt;

/**
 * A door's state as JSON, written with {@link JsonWriter}: every limiter (limit, in flight,
 * queued, counts, rejections by reason, recent queue-wait p99, CPU against target for {@code
 * limit=cpu}, the limit strategy's inputs, waiters by class and key, a global limiter's leases
 * across the cluster, what requests cost against the ceiling) and every rule in force with its
 * counts, then the machine's and this process's CPU and the last minutes of the live page's series
 * ({@link History}). Every HTTP door answers this one document on its status path and on its live
 * page's data path ({@link DashboardPage}). Durations are in milliseconds; a value not known is
 * null. Fields are only ever added.
 *
 * <pre>{@code
 * StatusReport status = new StatusReport(limiters, waits, history, ruleCounters, rules, null);
 * String json = status.json(System.currentTimeMillis());
 * }</pre>
 */
public final class StatusReport {

  /** One limiter of a door as the status shows it. */
  public interface Limiter {
    /** The core limiter: its snapshot, queue and leases. */
    ConcurrencyLimiter limiter();

    /** The settings in force (after reloads). */
    LimiterConfig config();

    /** What requests cost against the ceiling of the limit, as seen so far. */
    Costs costs();
  }

  /**
   * What the requests of one limiter cost, in units of its limit.
   *
   * @param scale the caller's units per unit of the limit ({@code cost-scale}; 1 without)
   * @param largestUnits the largest cost seen, in units of the limit; 0 before any (shown null)
   * @param largestDeclared the largest cost a caller declared, before the scale; 0 when the cost
   *     is not declared by the caller or none was yet (shown null)
   * @param aboveCeiling requests that cost more than {@code max-concurrency}, since start
   */
  public record Costs(int scale, long largestUnits, long largestDeclared, long aboveCeiling) {}

  private final List<? extends Limiter> limiters;
  private final QueueWaits waits; // null: p99 not tracked (live page off)
  private final History history; // null: not kept (live page off)
  private final RuleCounters ruleCounters;
  private final RateRules rules; // null: no rate rules
  private final Stores stores; // null: no shared store

  /**
   * The status of a door.
   *
   * @param limiters the door's limiters, in declaration order
   * @param waits their recent queue waits, or null (the p99 is then null)
   * @param history the live page's series, or null (then {@code cpu} and {@code history} are null)
   * @param ruleCounters the rules' decision counts
   * @param rules the rules in force, or null without rules
   * @param stores the shared store behind global scope, or null without one
   */
  public StatusReport(
      List<? extends Limiter> limiters,
      QueueWaits waits,
      History history,
      RuleCounters ruleCounters,
      RateRules rules,
      Stores stores) {
    this.limiters = limiters;
    this.waits = waits;
    this.history = history;
    this.ruleCounters = ruleCounters;
    this.rules = rules;
    this.stores = stores;
  }

  /** The document at {@code epochMillis} (its {@code time}, and where its history ends). */
  public String json(long epochMillis) {
    JsonWriter w = new JsonWriter().beginObject();
    w.member("time", epochMillis);
    w.member("enabled", true);
    w.name("limiters").beginArray();
    for (Limiter e : limiters) {
      limiter(w, e);
    }
    w.endArray();
    w.name("rules").beginArray();
    long maxKeys = rules == null ? 0 : rules.maxKeysPerRule();
    for (RuleSnapshot r : ruleCounters.snapshots(rules)) {
      rule(w, r, maxKeys);
    }
    w.endArray();
    store(w, stores == null ? null : stores.health());
    // the CPU at the history's last point: read on its schedule, so a poll never reads the CPU
    if (history == null) {
      w.name("cpu").nullValue().name("history").nullValue();
    } else {
      w.name("cpu")
          .beginObject()
          .member("machine", history.machineCpu())
          .member("process", history.processCpu())
          .endObject();
      history.write(w, epochMillis);
    }
    return w.endObject().toString();
  }

  /** The same document with nothing in it, for a door that is off ({@code sluice.enabled=false}). */
  public static String disabled(long epochMillis) {
    return new JsonWriter()
        .beginObject()
        .member("time", epochMillis)
        .member("enabled", false)
        .name("limiters")
        .beginArray()
        .endArray()
        .name("rules")
        .beginArray()
        .endArray()
        .name("store")
        .nullValue()
        .name("cpu")
        .nullValue()
        .name("history")
        .nullValue()
        .endObject()
        .toString();
  }

  /** The shared store (Redis) behind global scope, or null without one. */
  private static void store(JsonWriter w, StoreHealth health) {
    w.name("store");
    if (health == null) {
      w.nullValue();
      return;
    }
    w.beginObject()
        .member("state", health.state())
        .member("description", health.description())
        .member("degradedDecisions", health.degradedDecisions())
        .member("lostStates", health.lostStates())
        .endObject();
  }

  /**
   * One limiter as it runs now: its spec in force (after reloads) from the core, and the door's
   * settings in force (path, scope, queue key); the CPU shown is what the controller acts on, read
   * from the limit's own state, so showing it never disturbs the controller's samples.
   */
  private void limiter(JsonWriter w, Limiter e) {
    ConcurrencySnapshot s = e.limiter().snapshot();
    LimiterSpec spec = s.spec();
    LimiterConfig c = e.config();
    w.beginObject()
        .member("name", s.name())
        .member("path", c.path().orElse(null))
        .member("scope", c.scope().id())
        .member("limitKind", spec.limit().kind())
        .member(
            "queueKind", spec.queue() instanceof QueueSpec.Standard q && q.fair() ? "fair" : "fifo")
        .member("queue", c.queue().describe())
        .member("rejectEarly", spec.rejectEarly())
        .member(
            "queueDelayTarget", spec.queueDelayTarget().map(Duration::toString).orElse(null))
        .member("deadlineHeader", c.deadlineHeader().orElse(null))
        .member("limit", s.limit())
        .member("maxConcurrency", spec.maxConcurrency())
        .member("minConcurrency", spec.limit().minConcurrency())
        .member("maxQueue", spec.maxQueue())
        .member("queueTimeoutMillis", spec.queueTimeout().toMillis())
        .member("inFlight", s.inFlight())
        // in flight above a limit that dropped below them: they finish, nobody new starts
        .member("draining", Math.max(0, s.inFlight() - s.limit()))
        .member("queued", s.queued())
        .member("admitted", s.admitted())
        .member("queuedTotal", s.queuedTotal());
    QueueSnapshot queue = e.limiter().queueSnapshot(); // under the limiter's lock: read once
    w.name("rejected")
        .beginObject()
        .member("queueFull", s.rejectedQueueFull())
        .member("queueTimeout", s.rejectedQueueTimeout())
        .member("cancelled", s.cancelled())
        .member("shutdown", s.rejectedShutdown())
        .member("late", s.rejectedLate())
        // queue-full answers with a finer reason, also counted in queueFull
        .member("keyCap", queue.rejectedKeyCap())
        .member("predictedWait", s.rejectedPredictedWait())
        .member("standingQueue", s.rejectedStandingQueue())
        .member("displaced", queue.displaced())
        .endObject();
    double p99 = waits == null ? -1 : waits.p99Millis(s.name());
    w.name("queueWaitP99Millis");
    if (p99 < 0) {
      w.nullValue();
    } else {
      w.value(p99);
    }
    w.member("queueWaitMeanMillis", mean(s.queueWaitTotalNanos(), s.queueWaitCount()))
        .member("queueWaitMaxMillis", s.queueWaitMaxNanos() / 1e6)
        .member("serviceMeanMillis", mean(s.serviceTotalNanos(), s.serviceCount()))
        .member("shutdown", s.shutdown());
    w.name("cpu");
    if (spec.limit() instanceof LimitSpec.Cpu cpu) {
      double now = s.limitState().cpu();
      w.beginObject()
          .member("target", cpu.targetCpu())
          .member("source", cpu.signal().toString());
      w.name("now");
      if (Double.isNaN(now)) {
        w.nullValue();
      } else {
        w.value(now);
      }
      w.endObject();
    } else {
      w.nullValue();
    }
    clusterLimitAndQueue(w, e, s, queue);
    cost(w, e, spec.maxConcurrency());
    w.endObject();
  }

  /**
   * What a request costs and how that compares with the ceiling ({@code max-concurrency}): a cost
   * above it runs alone, so {@code aboveCeiling} counting up means the limit does not limit.
   */
  private static void cost(JsonWriter w, Limiter e, int ceiling) {
    Costs seen = e.costs();
    long largest = seen.largestUnits();
    w.name("cost")
        .beginObject()
        .member("spec", e.config().cost())
        .member("scale", seen.scale())
        .member("ceiling", ceiling);
    w.name("largestUnits");
    if (largest > 0) {
      w.value(largest);
    } else {
      w.nullValue();
    }
    w.name("largestDeclared");
    if (seen.largestDeclared() > 0) {
      w.value(seen.largestDeclared());
    } else {
      w.nullValue();
    }
    w.member("aboveCeiling", seen.aboveCeiling()).endObject();
  }

  /**
   * The global limiter's leases across every node, the limit strategy's inputs and who waits by
   * class and in how many keys: what an operator asks of a limiter beside its counts.
   */
  private static void clusterLimitAndQueue(
      JsonWriter w, Limiter e, ConcurrencySnapshot s, QueueSnapshot queue) {
    OptionalInt leases = e.limiter().clusterLeases(); // empty for a local limiter
    w.name("clusterLeases");
    if (leases.isPresent()) {
      w.value(leases.getAsInt());
    } else {
      w.nullValue();
    }
    w.member("serviceMaxMillis", s.serviceMaxNanos() / 1e6);
    var state = s.limitState(); // inputs a strategy does not use are NaN, written as null
    w.name("limitSource")
        .beginObject()
        .member("strategy", state.strategy())
        .member("exactLimit", state.exactLimit())
        .member("minLimit", state.minLimit())
        .member("maxLimit", state.maxLimit())
        .member("cpu", state.cpu())
        .member("targetCpu", state.targetCpu())
        .member("serviceMillis", state.serviceMillis())
        .member("targetServiceMillis", state.targetServiceMillis())
        .endObject();
    w.name("waiting")
        .beginObject()
        .member("critical", queue.critical())
        .member("normal", queue.normal())
        .member("sheddable", queue.sheddable())
        .member("keys", queue.keys())
        .endObject();
  }

  private static void rule(JsonWriter w, RuleSnapshot r, long maxKeys) {
    Rule rule = r.rule();
    w.beginObject()
        .member("id", rule.id())
        .member("resource", rule.resource().toString())
        .member("method", rule.method().orElse("*"))
        .member("actor", rule.actor().id())
        .member("limit", rule.limit().limit())
        .member("periodMillis", rule.limit().period().toMillis())
        .member("burst", rule.limit().burst())
        .member("algorithm", rule.algorithm().id())
        .member("scope", rule.scope().id())
        .member("shadow", rule.shadow())
        .member("allowed", r.allowed())
        .member("rejected", r.rejected())
        .member("shadowRejected", r.shadowRejected());
    if (r.keys() >= 0) { // a rule counted in the shared store holds no key on this node
      w.member("keys", r.keys()).member("maxKeys", maxKeys);
    }
    w.endObject();
  }

  private static double mean(long totalNanos, long count) {
    return count == 0 ? 0 : Math.round(totalNanos / 1e3 / count) / 1e3;
  }
}
