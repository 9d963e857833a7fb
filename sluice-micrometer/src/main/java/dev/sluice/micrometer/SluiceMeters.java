package dev.sluice.micrometer;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.rate.RateOutcome;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.Rule;
import dev.sluice.store.StoreHealth;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
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
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;

/**
 * Sluice's Micrometer meters, the same names and tags at every door (listed in the Javalin plugin's
 * README). A door makes one, registers each limiter's gauges, hands {@link #concurrencyListener()}
 * to its limiters and {@link #rateListener()} to its rules; the application binds it to any number
 * of registries, before or after the server starts. A registry bound after meters exist sees only
 * what happens after; Micrometer logs a warning saying so.
 *
 * <pre>{@code
 * SluiceMeters meters = new SluiceMeters();
 * meters.gauges("work", limiter::snapshot);
 * meters.bindTo(registry);
 * }</pre>
 *
 * <p>Meters live in an internal composite registry, so the hot-path callbacks look a meter up once
 * per (limiter, outcome) and never per registry.
 */
public class SluiceMeters implements MeterBinder {

  /** Meter name {@code sluice.concurrency.limit}. */
  public static final String LIMIT = "sluice.concurrency.limit";
  /** Meter name {@code sluice.concurrency.max.queue}. */
  public static final String MAX_QUEUE = "sluice.concurrency.max.queue";
  /** Meter name {@code sluice.concurrency.in.flight}. */
  public static final String IN_FLIGHT = "sluice.concurrency.in.flight";
  /** Meter name {@code sluice.concurrency.queued}. */
  public static final String QUEUED = "sluice.concurrency.queued";
  /** Meter name {@code sluice.concurrency.limit.exact}. */
  public static final String LIMIT_EXACT = "sluice.concurrency.limit.exact";
  /** Meter name {@code sluice.concurrency.cpu}. */
  public static final String CPU = "sluice.concurrency.cpu";
  /** Meter name {@code sluice.concurrency.cpu.target}. */
  public static final String CPU_TARGET = "sluice.concurrency.cpu.target";
  /** Meter name {@code sluice.concurrency.service.mean}. */
  public static final String SERVICE_MEAN = "sluice.concurrency.service.mean";
  /** Meter name {@code sluice.concurrency.service.target}. */
  public static final String SERVICE_TARGET = "sluice.concurrency.service.target";
  /** Meter name {@code sluice.concurrency.queued.class}. */
  public static final String QUEUED_CLASS = "sluice.concurrency.queued.class";
  /** Meter name {@code sluice.concurrency.queued.keys}. */
  public static final String QUEUED_KEYS = "sluice.concurrency.queued.keys";
  /** Meter name {@code sluice.concurrency.cluster.leases}. */
  public static final String CLUSTER_LEASES = "sluice.concurrency.cluster.leases";
  /** Meter name {@code sluice.concurrency.requests}. */
  public static final String REQUESTS = "sluice.concurrency.requests";
  /** Meter name {@code sluice.concurrency.queue.wait}. */
  public static final String QUEUE_WAIT = "sluice.concurrency.queue.wait";
  /** Meter name {@code sluice.concurrency.service.time}. */
  public static final String SERVICE_TIME = "sluice.concurrency.service.time";
  /** Meter name {@code sluice.rate.decisions}. */
  public static final String RATE_DECISIONS = "sluice.rate.decisions";
  /** Meter name {@code sluice.rate.rules}. */
  public static final String RATE_RULES = "sluice.rate.rules";
  /** Meter name {@code sluice.http.rejections}. */
  public static final String HTTP_REJECTIONS = "sluice.http.rejections";
  /** Meter name {@code sluice.http.deadline.malformed}. */
  public static final String DEADLINE_MALFORMED = "sluice.http.deadline.malformed";
  /** Meter name {@code sluice.concurrency.rejected.late}. */
  public static final String REJECTED_LATE = "sluice.concurrency.rejected.late";
  /** Meter name {@code sluice.shutdown.cut}. */
  public static final String SHUTDOWN_CUT = "sluice.shutdown.cut";
  /** Meter name {@code sluice.store.state}. */
  public static final String STORE_STATE = "sluice.store.state";
  /** Meter name {@code sluice.store.degraded}. */
  public static final String STORE_DEGRADED = "sluice.store.degraded";
  /** Meter name {@code sluice.store.lost}. */
  public static final String STORE_LOST = "sluice.store.lost";

  private final CompositeMeterRegistry composite = new CompositeMeterRegistry();
  private final Map<String, Counter> counters = new ConcurrentHashMap<>();
  private final Map<String, Timer> timers = new ConcurrentHashMap<>();
  // the meters every admitted request touches, one lookup by limiter name and no key building:
  // the generic lookups below concatenate a key per event, which showed in a profile of a trivial
  // endpoint
  private final Map<String, HotMeters> hot = new ConcurrentHashMap<>();
  private final Map<String, RuleMeters> rules = new ConcurrentHashMap<>();
  private final List<MeterRegistry> bound = new CopyOnWriteArrayList<>();
  // bumped by every bind: hot meters of an older generation lack the new registry's timers
  private volatile int generation;

  /** Meters in no registry yet: {@link #bindTo} adds one. */
  public SluiceMeters() {}

  // synchronized: two binds at once must each bump the generation (a volatile ++ is not atomic)
  @Override
  public synchronized void bindTo(MeterRegistry registry) {
    if (!bound.contains(registry)) {
      bound.add(registry);
      composite.add(registry);
      // the hot meters hold the bound registries' own timers: find them again, with this one
      generation++;
      for (String limiter : List.copyOf(hot.keySet())) {
        hot.remove(limiter);
        hot(limiter);
      }
    }
  }

  /** Registers the gauges of one limiter. */
  public void gauges(String limiter, Supplier<ConcurrencySnapshot> snapshot) {
    HotMeters meters = hot(limiter);
    // admissions at once are most requests: counted from the limiter's own exact count when
    // scraped, rather than by a counter increment per request; held monotonic, since a grant is in
    // the limiter's count an instant before its queued-admission counter
    java.util.concurrent.atomic.AtomicLong reported = new java.util.concurrent.atomic.AtomicLong();
    FunctionCounter.builder(
            REQUESTS,
            snapshot,
            s -> reported.accumulateAndGet(
                s.get().admitted() - (long) meters.admittedQueued.count(), Math::max))
        .description("concurrency limiter decisions")
        .tag("limiter", limiter)
        .tag("outcome", "admitted")
        .tag("reason", "immediate")
        .register(composite);
    gauge(LIMIT, "permits", limiter, snapshot, s -> s.limit());
    gauge(MAX_QUEUE, "queue bound", limiter, snapshot, s -> s.maxQueue());
    gauge(
        IN_FLIGHT, "requests holding a permit on this node", limiter, snapshot, s -> s.inFlight());
    gauge(QUEUED, "requests waiting for a permit", limiter, snapshot, s -> s.queued());
    // what an adaptive limit decides from; NaN where the strategy has no such input (a fixed
    // limit, or cpu vs latency), registered for every limiter since a reload may change strategy
    gauge(
        LIMIT_EXACT,
        "adaptive limit: the controller's real-valued limit",
        limiter,
        snapshot,
        s -> s.limitState().exactLimit());
    gauge(
        CPU,
        "limit=cpu: CPU utilisation measured, 0-1",
        limiter,
        snapshot,
        s -> s.limitState().cpu());
    gauge(
        CPU_TARGET,
        "limit=cpu: CPU utilisation held, 0-1",
        limiter,
        snapshot,
        s -> s.limitState().targetCpu());
    gauge(
        SERVICE_MEAN,
        "limit=latency: mean service time of the last window, ms",
        limiter,
        snapshot,
        s -> s.limitState().serviceMillis());
    gauge(
        SERVICE_TARGET,
        "limit=latency: service time above which the limit shrinks, ms",
        limiter,
        snapshot,
        s -> s.limitState().targetServiceMillis());
  }

  /** Registers the gauges of one limiter's queue by class and key (each read takes its lock). */
  public void queueGauges(String limiter, Supplier<QueueSnapshot> queue) {
    for (Priority p : Priority.values()) {
      Gauge.builder(QUEUED_CLASS, queue, q -> q.get().queued(p))
          .description("requests waiting for a permit, by priority class")
          .tag("limiter", limiter)
          .tag("class", p.name().toLowerCase(Locale.ROOT))
          .strongReference(true)
          .register(composite);
    }
    Gauge.builder(QUEUED_KEYS, queue, q -> q.get().keys())
        .description("keys with requests waiting (fair queue)")
        .tag("limiter", limiter)
        .strongReference(true)
        .register(composite);
  }

  /**
   * A global limiter's leases held by every node together, as last read from the store (NaN while
   * unknown); {@link #IN_FLIGHT} is this node's part of them.
   */
  public void clusterLeases(String limiter, Supplier<java.util.OptionalInt> leases) {
    Gauge.builder(CLUSTER_LEASES, leases, l -> {
          java.util.OptionalInt held = l.get();
          return held.isPresent() ? held.getAsInt() : Double.NaN;
        })
        .description("leases held across every node (global limiter)")
        .tag("limiter", limiter)
        .strongReference(true)
        .register(composite);
  }

  /**
   * The shared store's health: one {@code sluice.store.state} gauge per state, 1 for the state in
   * force and 0 for the others (so a dashboard can graph time spent down or settling), and the
   * decisions made without it and the losses of its state as counters.
   */
  public void store(Supplier<StoreHealth> health) {
    for (String state :
        List.of(StoreHealth.UP, StoreHealth.DOWN, StoreHealth.PROBING, StoreHealth.SETTLING)) {
      Gauge.builder(STORE_STATE, health, h -> state.equals(h.get().state()) ? 1 : 0)
          .description("1 while the shared store (Redis) is in this state")
          .tag("state", state)
          .strongReference(true)
          .register(composite);
    }
    FunctionCounter.builder(STORE_DEGRADED, health, h -> h.get().degradedDecisions())
        .description("global decisions made without the shared store (failure policy or share)")
        .register(composite);
    FunctionCounter.builder(STORE_LOST, health, h -> h.get().lostStates())
        .description("times this node found that the shared store had lost its state")
        .register(composite);
  }

  /** The number of rate rules loaded, read when scraped. */
  public void ruleCount(Supplier<Integer> count) {
    Gauge.builder(RATE_RULES, count, c -> c.get())
        .description("rate rules loaded")
        .strongReference(true)
        .register(composite);
  }

  private void gauge(
      String name,
      String description,
      String limiter,
      Supplier<ConcurrencySnapshot> snapshot,
      ToDoubleFunction<ConcurrencySnapshot> value) {
    Gauge.builder(name, snapshot, s -> value.applyAsDouble(s.get()))
        .description(description)
        .tag("limiter", limiter)
        .strongReference(true) // the supplier is a method reference nobody else holds
        .register(composite);
  }

  /** What a door's limiters tell the meters: give it to every limiter. */
  public ConcurrencyListener concurrencyListener() {
    return new ConcurrencyListener() {
      // the last limiter's meters: a limiter passes its own name instance on every event, so an
      // identity check on it skips even the map lookup (racy by design: a stale pair is still a
      // consistent pair, and a miss only costs the lookup)
      private HotMeters last;

      private HotMeters meters(String limiter) {
        HotMeters m = last;
        if (m == null || !m.limiter.equals(limiter) || m.generation != generation) {
          m = hot(limiter);
          last = m;
        }
        return m;
      }

      @Override
      public void onAdmitted(String limiter, long queuedNanos) {
        if (queuedNanos > 0) { // at once: counted from the limiter's snapshot (see gauges)
          HotMeters meters = meters(limiter);
          meters.admittedQueued.increment();
          meters.queueWaitAdmitted.record(queuedNanos, TimeUnit.NANOSECONDS);
        }
      }

      @Override
      public void onRejected(
          String limiter, Outcome outcome, RejectionReason why, long waitedNanos) {
        // the finer reason when there is one: key_cap and displaced are queue-full answers too
        String reason = (why == null ? outcome.name() : why.name()).toLowerCase(Locale.ROOT);
        counter(REQUESTS, limiter, "rejected", reason).increment();
        if (outcome == Outcome.QUEUE_FULL && waitedNanos > 0) {
          // answered after queueing (displaced, predicted at a re-check, shed): a late 429
          counter(REJECTED_LATE, limiter, "rejected", reason).increment();
        }
        if (outcome != Outcome.QUEUE_FULL) {
          timer(QUEUE_WAIT, limiter, reason).record(waitedNanos, TimeUnit.NANOSECONDS);
        }
      }

      @Override
      public void onReleased(String limiter, long serviceNanos) {
        // straight to each bound registry's timer: the composite's record walks its children with
        // an iterator, an allocation on every request
        Timer[] timers = meters(limiter).serviceTimes;
        for (int i = 0; i < timers.length; i++) {
          timers[i].record(serviceNanos, TimeUnit.NANOSECONDS);
        }
      }
    };
  }

  /** What a door's rate rules tell the meters: give it to the rules engine. */
  public RateListener rateListener() {
    return new RateListener() {
      @Override
      public void onDecision(Rule rule, RateOutcome outcome, String actorKey) {
        String id = rule.id();
        RuleMeters meters = rules.get(id); // the id's hash is cached: no key is built per decision
        if (meters == null) {
          meters = rules.computeIfAbsent(id, RuleMeters::new);
        }
        meters.count(outcome.allowed() ? 0 : rule.shadow() ? 2 : 1);
      }
    };
  }

  /**
   * Counts a request a door answered instead of the endpoint.
   *
   * @param reason the rejection's finer reason ({@code queue_full}, {@code key_cap}, {@code
   *     displaced}, {@code predicted_wait}, {@code queue_timeout}, {@code cancelled} (client gone), {@code rate_limited}, {@code
   *     shutting_down})
   * @param status the status it answered
   */
  public void onHttpRejection(String reason, int status) {
    String key = HTTP_REJECTIONS + '|' + reason + '|' + status;
    counters
        .computeIfAbsent(
            key,
            k -> Counter.builder(HTTP_REJECTIONS)
                .description("requests Sluice answered instead of the endpoint")
                .tag("reason", reason)
                .tag("status", Integer.toString(status))
                .register(composite))
        .increment();
  }

  /** A deadline header that was neither milliseconds nor grpc-timeout: ignored, counted. */
  public void onMalformedDeadline(String limiter) {
    String key = DEADLINE_MALFORMED + '|' + limiter;
    counters
        .computeIfAbsent(
            key,
            k -> Counter.builder(DEADLINE_MALFORMED)
                .description("deadline headers Sluice could not read and ignored")
                .tag("limiter", limiter)
                .register(composite))
        .increment();
  }

  /**
   * One rule's decision counts, each registered on first use of its outcome as a function counter
   * over an adder: a decision is one adder increment (a composite counter's increment walks its
   * registries with an iterator, an allocation on every request).
   */
  private final class RuleMeters {
    private static final String[] OUTCOMES = {"allowed", "rejected", "shadow-rejected"};
    private final String rule;
    private final LongAdder[] byOutcome = new LongAdder[OUTCOMES.length];

    RuleMeters(String rule) {
      this.rule = rule;
    }

    void count(int outcome) {
      LongAdder c = byOutcome[outcome];
      if (c == null) {
        c = registered(outcome);
      }
      c.increment();
    }

    private synchronized LongAdder registered(int outcome) {
      LongAdder c = byOutcome[outcome];
      if (c == null) {
        c = new LongAdder();
        FunctionCounter.builder(RATE_DECISIONS, c, LongAdder::sum)
            .description("rate rule decisions")
            .tag("rule", rule)
            .tag("outcome", OUTCOMES[outcome])
            .register(composite); // weakly held by Micrometer: this array holds the adder
        byOutcome[outcome] = c;
      }
      return c;
    }
  }

  /** Requests still running when the drain timeout ran out at shutdown, cut by the stop. */
  public void shutdownCut(long requests) {
    Counter.builder(SHUTDOWN_CUT)
        .description("requests still running at the shutdown deadline, cut")
        .register(composite)
        .increment((double) requests);
  }

  private HotMeters hot(String limiter) {
    HotMeters meters = hot.get(limiter);
    return meters != null
        ? meters
        : hot.computeIfAbsent(
            limiter,
            name -> new HotMeters(
                name,
                counter(REQUESTS, name, "admitted", "queued"),
                timer(QUEUE_WAIT, name, "admitted"),
                children(timer(SERVICE_TIME, name, null)),
                generation));
  }

  /** The timers the composite's {@code timer} records into: one per bound registry. */
  private Timer[] children(Timer timer) {
    List<Timer> found = new java.util.ArrayList<>();
    for (MeterRegistry registry : bound) {
      Timer child =
          registry.find(timer.getId().getName()).tags(timer.getId().getTags()).timer();
      if (child != null) {
        found.add(child);
      }
    }
    return found.toArray(new Timer[0]);
  }

  /**
   * The meters of one limiter's common path; the same instances the generic lookups return, and
   * the service-time timers of the bound registries themselves.
   */
  @SuppressWarnings("ArrayRecordComponent") // private, and never compared, hashed or printed
  private record HotMeters(
      String limiter,
      Counter admittedQueued,
      Timer queueWaitAdmitted,
      Timer[] serviceTimes,
      int generation) {}

  private Counter counter(String name, String limiter, String outcome, String reason) {
    String key = name + '|' + limiter + '|' + outcome + '|' + reason;
    return counters.computeIfAbsent(
        key,
        k -> Counter.builder(name)
            .description("concurrency limiter decisions")
            .tag("limiter", limiter)
            .tag("outcome", outcome)
            .tag("reason", reason)
            .register(composite));
  }

  private Timer timer(String name, String limiter, String outcome) {
    String key = name + '|' + limiter + '|' + outcome;
    return timers.computeIfAbsent(key, k -> {
      Timer.Builder b = Timer.builder(name)
          .tag("limiter", limiter)
          .publishPercentileHistogram()
          .description(QUEUE_WAIT.equals(name) ? "time spent queued" : "time a permit was held");
      if (outcome != null) {
        b.tag("outcome", outcome);
      }
      return b.register(composite);
    });
  }
}
