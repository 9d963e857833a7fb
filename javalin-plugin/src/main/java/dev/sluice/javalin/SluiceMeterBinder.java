package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Outcome;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RuleDecision;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.composite.CompositeMeterRegistry;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Sluice's Micrometer metrics; every name and tag is listed in the module's README. Get it from
 * {@link SluicePlugin#meterBinder()} and bind it to any number of registries, before or after the
 * server starts (or let {@link SluiceConfig#meterRegistry} do it, which binds before any meter
 * exists). A registry bound after meters exist sees only what happens after; Micrometer logs a
 * warning saying so.
 *
 * <p>Meters live in an internal composite registry, so the hot-path callbacks look a meter up once
 * per (limiter, outcome) and never per registry.
 */
public final class SluiceMeterBinder implements MeterBinder {

  static final String LIMIT = "sluice.concurrency.limit";
  static final String MAX_QUEUE = "sluice.concurrency.max.queue";
  static final String IN_FLIGHT = "sluice.concurrency.in.flight";
  static final String QUEUED = "sluice.concurrency.queued";
  static final String CLUSTER_LEASES = "sluice.concurrency.cluster.leases";
  static final String REQUESTS = "sluice.concurrency.requests";
  static final String QUEUE_WAIT = "sluice.concurrency.queue.wait";
  static final String SERVICE_TIME = "sluice.concurrency.service.time";
  static final String RATE_DECISIONS = "sluice.rate.decisions";
  static final String RATE_RULES = "sluice.rate.rules";
  static final String HTTP_REJECTIONS = "sluice.http.rejections";
  static final String SHUTDOWN_CUT = "sluice.shutdown.cut";

  private final CompositeMeterRegistry composite = new CompositeMeterRegistry();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  // the meters every admitted request touches, one lookup by limiter name and no key building:
  // the generic lookups below concatenate a key per event, which showed in a profile of a trivial
  // endpoint
  private final Map<String, HotMeters> hot = new ConcurrentHashMap<>();
  private final List<MeterRegistry> bound = new CopyOnWriteArrayList<>();

  SluiceMeterBinder() {}

  @Override
  public void bindTo(MeterRegistry registry) {
    if (!bound.contains(registry)) {
      bound.add(registry);
      composite.add(registry);
    }
  }

  /** Registers the gauges of one limiter. */
  void gauges(String limiter, Supplier<ConcurrencySnapshot> snapshot) {
    gauge(LIMIT, "permits", limiter, snapshot, s -> s.limit());
    gauge(MAX_QUEUE, "queue bound", limiter, snapshot, s -> s.maxQueue());
    gauge(IN_FLIGHT, "requests holding a permit on this node", limiter, snapshot,
        s -> s.inFlight());
    gauge(QUEUED, "requests waiting for a permit", limiter, snapshot, s -> s.queued());
  }

  /**
   * A global limiter's leases held by every node together, as last read from the store (NaN while
   * unknown); {@link #IN_FLIGHT} is this node's part of them.
   */
  void clusterLeases(String limiter, Supplier<java.util.OptionalInt> leases) {
    Gauge.builder(CLUSTER_LEASES, leases, l -> {
          java.util.OptionalInt held = l.get();
          return held.isPresent() ? held.getAsInt() : Double.NaN;
        })
        .description("leases held across every node (global limiter)")
        .tag("limiter", limiter)
        .strongReference(true)
        .register(composite);
  }

  void ruleCount(Supplier<Integer> count) {
    Gauge.builder(RATE_RULES, count, c -> c.get()).description("rate rules loaded")
        .strongReference(true).register(composite);
  }

  private void gauge(String name, String description, String limiter,
      Supplier<ConcurrencySnapshot> snapshot, ToDoubleFunction<ConcurrencySnapshot> value) {
    Gauge.builder(name, snapshot, s -> value.applyAsDouble(s.get()))
        .description(description)
        .tag("limiter", limiter)
        .strongReference(true) // the supplier is a method reference nobody else holds
        .register(composite);
  }

  ConcurrencyListener concurrencyListener() {
    return new ConcurrencyListener() {
      @Override
      public void onAdmitted(String limiter, long queuedNanos) {
        HotMeters meters = hot(limiter);
        if (queuedNanos > 0) {
          meters.admittedQueued.increment();
          meters.queueWaitAdmitted.record(queuedNanos, TimeUnit.NANOSECONDS);
        } else {
          meters.admittedImmediate.increment();
        }
      }

      @Override
      public void onRejected(String limiter, Outcome outcome, long waitedNanos) {
        String reason = outcome.name().toLowerCase(Locale.ROOT);
        counter(REQUESTS, limiter, "rejected", reason).increment();
        if (outcome != Outcome.QUEUE_FULL) {
          timer(QUEUE_WAIT, limiter, reason).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
      }

      @Override
      public void onReleased(String limiter, long serviceNanos) {
        hot(limiter).serviceTime.record(serviceNanos, TimeUnit.NANOSECONDS);
      }
    };
  }

  RateListener rateListener() {
    return new RateListener() {
      @Override
      public void onDecision(RuleDecision d) {
        String outcome = d.decision().allowed() ? "allowed"
            : d.rule().shadow() ? "shadow-rejected" : "rejected";
        String key = RATE_DECISIONS + '|' + d.rule().id() + '|' + outcome;
        counters.computeIfAbsent(key, k -> Counter.builder(RATE_DECISIONS)
            .description("rate rule decisions")
            .tag("rule", d.rule().id())
            .tag("outcome", outcome)
            .register(composite)).increment();
      }
    };
  }

  void onHttpRejection(Rejection.Reason reason, int status) {
    String key = HTTP_REJECTIONS + '|' + reason.id + '|' + status;
    counters.computeIfAbsent(key, k -> Counter.builder(HTTP_REJECTIONS)
        .description("requests Sluice answered instead of the endpoint")
        .tag("reason", reason.id)
        .tag("status", Integer.toString(status))
        .register(composite)).increment();
  }

  /** Requests still running when the drain timeout ran out at shutdown, cut by the stop. */
  void shutdownCut(long requests) {
    Counter.builder(SHUTDOWN_CUT)
        .description("requests still running at the shutdown deadline, cut")
        .register(composite).increment(requests);
  }

  private HotMeters hot(String limiter) {
    HotMeters meters = hot.get(limiter);
    return meters != null ? meters : hot.computeIfAbsent(limiter, name -> new HotMeters(
        counter(REQUESTS, name, "admitted", "immediate"),
        counter(REQUESTS, name, "admitted", "queued"),
        timer(QUEUE_WAIT, name, "admitted"),
        timer(SERVICE_TIME, name, null)));
  }

  /** The meters of one limiter's common path; the same instances the generic lookups return. */
  private record HotMeters(
      Counter admittedImmediate, Counter admittedQueued, Timer queueWaitAdmitted, Timer serviceTime) {}

  private Counter counter(String name, String limiter, String outcome, String reason) {
    String key = name + '|' + limiter + '|' + outcome + '|' + reason;
    return counters.computeIfAbsent(key, k -> Counter.builder(name)
        .description("concurrency limiter decisions")
        .tag("limiter", limiter)
        .tag("outcome", outcome)
        .tag("reason", reason)
        .register(composite));
  }

  private Timer timer(String name, String limiter, String outcome) {
    String key = name + '|' + limiter + '|' + outcome;
    return timers.computeIfAbsent(key, k -> {
      Timer.Builder b = Timer.builder(name).tag("limiter", limiter).publishPercentileHistogram()
          .description(QUEUE_WAIT.equals(name) ? "time spent queued" : "time a permit was held");
      if (outcome != null) {
        b.tag("outcome", outcome);
      }
      return b.register(composite);
    });
  }
}
