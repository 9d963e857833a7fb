package dev.sluice.config;

import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Every property of a limiter, {@code sluice.limiters.<name>.<key>}: the one place that says its
 * name, parser and check, where its value goes, and one line of documentation.
 *
 * <p><b>To add a limiter setting:</b> give the core's {@code LimiterSpec} the field and its
 * builder setter; declare the key here with {@link LimiterKey#spec} (name, parser from {@link
 * ValueParser}, the setter, one line of documentation) and list it in {@link #ALL}; add a row to
 * the plugin README's property table (a test checks every key is there). Properties, environment
 * variables, code ({@code l.set(key, value)}), the strict unknown-key check and reloads then know
 * it; a running limiter gets a changed value through {@code reconfigure}.
 */
public final class LimiterKeys {

  /** {@code limit}: where the limit comes from. */
  public enum LimitKind {
    FIXED,
    CPU,
    LATENCY
  }

  /** {@code cpu-source}: whose CPU an adaptive limit holds at target. */
  public enum CpuSource {
    MACHINE,
    PROCESS
  }

  /** {@code queue}: the queue discipline. */
  public enum QueueKind {
    FIFO,
    FAIR
  }

  public static final LimiterKey<String> PATH = LimiterKey.of(
          "path",
          ValueParser.of(LimiterKeys::pathPattern, "/exact, /prefix/* or /prefix/**"),
          (b, v) -> b.path = v,
          "path pattern guarded: `/exact`, `/prefix/*` (one segment), `/prefix/**` (any depth); none:"
              + " only handlers wrapped with `sluice.limited(name, handler)`")
      .optional(null);

  public static final LimiterKey<Integer> MAX_CONCURRENCY = LimiterKey.spec(
      "max-concurrency",
      ValueParser.atLeast(1),
      LimiterSpec.Builder::maxConcurrency,
      "permits (fixed limit; ceiling of an adaptive one); reloadable");

  public static final LimiterKey<Integer> MAX_QUEUE = LimiterKey.spec(
      "max-queue",
      ValueParser.atLeast(0),
      LimiterSpec.Builder::maxQueue,
      "requests that may wait; one more is answered queue-full; reloadable");

  public static final LimiterKey<Duration> QUEUE_TIMEOUT = LimiterKey.spec(
      "queue-timeout",
      ValueParser.duration(false),
      LimiterSpec.Builder::queueTimeout,
      "longest wait in the queue, then 504; reloadable");

  public static final LimiterKey<Scope> SCOPE = LimiterKey.of(
      "scope",
      ValueParser.oneOf(Scope.class),
      (b, v) -> b.scope = v,
      "`global`: besides the local permit, a lease on one of `max-concurrency` cluster-wide permits"
          + " in the shared store (needs `sluice.redis.uri`)");

  /**
   * The smallest {@code lease-time}: leases are renewed every third of it, and a node that cannot
   * renew for two thirds of it (a pause, a slow store) loses them as if it had died.
   */
  public static final Duration MIN_LEASE_TIME = Duration.ofSeconds(2);

  public static final LimiterKey<Duration> LEASE_TIME = LimiterKey.spec(
      "lease-time",
      ValueParser.durationAtLeast(
          MIN_LEASE_TIME,
          "leases are renewed every third of the lease time and lost by a node that cannot renew"
              + " them for two thirds of it, so a shorter one would count an ordinary GC pause or"
              + " a few slow store calls as the node's death"),
      LimiterSpec.Builder::leaseTime,
      "`scope=global`: how long a lease outlives its node's last renewal (renewed every third of"
          + " it); reloadable (leases taken after the change)");

  // The adaptive limits: `limit` and these three keys make the core's LimitSpec
  // (LimiterConfig.Builder.build); a change of any of them on reload moves the running limiter to a
  // new source, starting from
  // the limit in force.
  public static final LimiterKey<LimitKind> LIMIT = LimiterKey.of(
      "limit",
      ValueParser.oneOf(LimitKind.class),
      (b, v) -> b.limit = v,
      "`fixed` (`max-concurrency`), `cpu` (hold `target-cpu`), `latency` (gradient on service"
          + " time); adaptive: `max-concurrency` is the ceiling; reloadable");

  public static final LimiterKey<Double> TARGET_CPU = LimiterKey.of(
      "target-cpu",
      ValueParser.fraction(),
      (b, v) -> b.targetCpu = v,
      "`limit=cpu`: target utilisation, 0 < x < 1, also written `70%`;" + " reloadable");

  public static final LimiterKey<CpuSource> CPU_SOURCE = LimiterKey.of(
      "cpu-source",
      ValueParser.oneOf(CpuSource.class),
      (b, v) -> b.cpuSource = v,
      "`limit=cpu`: `machine` (container-aware) or `process`; reloadable");

  public static final LimiterKey<Integer> MIN_CONCURRENCY = LimiterKey.of(
      "min-concurrency",
      ValueParser.atLeast(1),
      (b, v) -> b.minConcurrency = v,
      "adaptive limits: lower bound (<= `max-concurrency`); reloadable");

  public static final LimiterKey<Boolean> REJECT_EARLY = LimiterKey.spec(
      "reject-early",
      ValueParser.bool(),
      LimiterSpec.Builder::rejectEarly,
      "`true`: answer 429 at once when the predicted wait (work ahead x mean service time /"
          + " limit) exceeds the queue timeout, and reject a queued request whose deadline"
          + " became unreachable; reloadable");

  public static final LimiterKey<Duration> EXPECTED_SERVICE_TIME = LimiterKey.spec(
          "expected-service-time",
          ValueParser.duration(false),
          LimiterSpec.Builder::expectedServiceTime,
          "what one request (of cost 1) is expected to take: seeds the `reject-early` prediction"
              + " of a new limiter, worth four timed requests, one fewer per request timed; empty:"
              + " learnt from the requests alone; reloadable")
      .optional(Duration.ZERO);

  // The queue discipline: the four keys together make the core's QueueSpec and the per-request
  // Caller (QueueSettings); on reload the core moves the queued requests to the new queue.
  public static final LimiterKey<QueueKind> QUEUE = LimiterKey.of(
      "queue",
      ValueParser.oneOf(QueueKind.class),
      (b, v) -> b.queue = v,
      "`fifo` or `fair` (round robin across `queue-key`s);"
          + " reloadable, queued requests move to the new queue");

  public static final LimiterKey<String> QUEUE_KEY = LimiterKey.of(
      "queue-key",
      ValueParser.of(LimiterKeys::queueKey, "ip, account, device, header:NAME"),
      (b, v) -> b.queueKey = v,
      "`queue=fair`: what groups waiters: `ip`, `account`, `device`, `header:NAME` (a request"
          + " without one queues under `unknown`); reloadable");

  public static final LimiterKey<Integer> MAX_QUEUE_PER_KEY = LimiterKey.of(
      "max-queue-per-key",
      ValueParser.atLeast(0),
      (b, v) -> b.maxQueuePerKey = v,
      "`queue=fair`: waiters one key may have (per class), more are"
          + " answered 429 `key_cap`; `0`: no per-key cap; reloadable");

  public static final LimiterKey<String> PRIORITY_HEADER = LimiterKey.of(
          "priority-header",
          ValueParser.headerName(),
          (b, v) -> b.priorityHeader = v,
          "header whose value is `critical`, `normal` or `sheddable` (other values: normal); set:"
              + " the queue has classes, a full queue lets a higher class displace the newest of"
              + " the lowest (429 `displaced`); unset: every request normal; reloadable")
      .optional(null);

  public static final LimiterKey<Duration> QUEUE_DELAY_TARGET = LimiterKey.spec(
          "queue-delay-target",
          ValueParser.duration(false),
          LimiterSpec.Builder::queueDelayTarget,
          "standing-queue control: when the queue has not drained for"
              + " max(100ms, target), newest first and waiters shed at the target (429"
              + " `standing_queue`); empty: off; reloadable")
      .optional(Duration.ZERO);

  public static final LimiterKey<String> DEADLINE_HEADER = LimiterKey.of(
          "deadline-header",
          ValueParser.headerName(),
          (b, v) -> b.deadlineHeader = v,
          "header with the client's deadline: milliseconds (`250`) or"
              + " grpc-timeout form (`250m`, `2S`); it shortens the request's queue timeout, one"
              + " already spent is answered 504 `deadline_exceeded` at once, a malformed one is"
              + " ignored and counted; reloadable")
      .optional(null);

  public static final LimiterKey<String> COST = LimiterKey.of(
      "cost",
      ValueParser.of(LimiterKeys::cost, "a whole number >= 1, header:NAME, query:NAME, learned"),
      (b, v) -> b.cost = v,
      "units of the limit a request takes: a number, declared by the client (`header:NAME`,"
          + " `query:NAME`; missing: 1; not a whole number >= 1: 400), or `learned` from service"
          + " times per queue key (or path); more than the limit runs alone; reloadable");

  public static final LimiterKey<Integer> COST_SCALE = LimiterKey.of(
      "cost-scale",
      ValueParser.atLeast(1),
      (b, v) -> b.costScale = v,
      "a declared cost's units per unit of the limit: a request takes declared / cost-scale"
          + " units, rounded, at least 1; reloadable");

  /** Every limiter key, in the README's order. */
  public static final List<LimiterKey<?>> ALL = List.of(
      PATH,
      MAX_CONCURRENCY,
      MAX_QUEUE,
      QUEUE_TIMEOUT,
      SCOPE,
      LEASE_TIME,
      LIMIT,
      TARGET_CPU,
      CPU_SOURCE,
      MIN_CONCURRENCY,
      REJECT_EARLY,
      EXPECTED_SERVICE_TIME,
      QUEUE,
      QUEUE_KEY,
      MAX_QUEUE_PER_KEY,
      PRIORITY_HEADER,
      QUEUE_DELAY_TARGET,
      DEADLINE_HEADER,
      COST,
      COST_SCALE);

  private LimiterKeys() {}

  public static LimiterKey<?> byName(String suffix) {
    for (LimiterKey<?> k : ALL) {
      if (k.name().equals(suffix)) {
        return k;
      }
    }
    return null;
  }

  /** Whether {@code spec} is a cost the client declares ({@code header:NAME}, {@code query:NAME}). */
  public static boolean declaredCost(String spec) {
    String lower = spec.trim().toLowerCase(Locale.ROOT);
    return lower.startsWith("header:") || lower.startsWith("query:");
  }

  /** Checks a {@code cost} property: a whole number >= 1, header:NAME, query:NAME or learned. */
  public static String cost(String raw) {
    String v = raw.trim();
    String lower = v.toLowerCase(Locale.ROOT);
    if (lower.equals("learned")) {
      return "learned";
    }
    if (lower.startsWith("header:")) {
      String name = v.substring("header:".length()).trim();
      ValueParser.headerName().check(name);
      return "header:" + name;
    }
    if (lower.startsWith("query:")) {
      String name = v.substring("query:".length()).trim();
      if (name.isEmpty()) {
        throw new IllegalArgumentException("query: needs a parameter name");
      }
      return "query:" + name;
    }
    try {
      if (Integer.parseInt(v) >= 1) {
        return v;
      }
    } catch (NumberFormatException e) {
      // falls through to the message
    }
    throw new IllegalArgumentException(
        "allowed: a whole number >= 1, header:NAME, query:NAME," + " learned");
  }

  private static String pathPattern(String raw) {
    if (!raw.startsWith("/")) {
      throw new IllegalArgumentException("a path pattern must start with /");
    }
    ResourcePattern.parse(raw); // throws IllegalArgumentException saying what is wrong
    return raw;
  }

  private static String queueKey(String raw) {
    String v = raw.toLowerCase(Locale.ROOT);
    if (v.equals("ip") || v.equals("account") || v.equals("device")) {
      return v;
    }
    if (v.startsWith("header:")) {
      String name = raw.substring("header:".length()).trim();
      ValueParser.headerName().check(name);
      new Actor.Header(name); // the rules' check too (an HTTP token), so QueueSettings cannot fail
      return "header:" + name;
    }
    throw new IllegalArgumentException("allowed: ip, account, device, header:NAME");
  }
}
