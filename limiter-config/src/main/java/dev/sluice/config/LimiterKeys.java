package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.limit.CpuLimit;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import java.time.Duration;
import java.util.List;
import java.util.Locale;

/**
 * Every property of a limiter, {@code sluice.limiters.<name>.<key>}: the one place that says its
 * name, parser and check, default, and how it shapes the core limiter.
 *
 * <p><b>To add a limiter property:</b> declare it here as a {@code static final Key<..>} with
 * {@link Key#of} (name after {@code sluice.limiters.<name>.}, default, parser from {@link
 * ValueParser}, one line of documentation); if it configures the core limiter, map it onto the
 * core's {@code LimiterSpec} in {@link LimiterConfig#spec} (the core then applies a changed value
 * to a running limiter and says what it did); add it to {@link #ALL}; add a row to
 * the README's property table (a test checks every key is there). Properties, environment
 * variables, the strict unknown-key check and {@code LimiterConfig.get(key)} then know it. A typed
 * setter on {@link LimiterConfig.Builder} is optional, for code users. Code that needs the value
 * per request (the Gate) reads {@code entry.config().get(LimiterKeys.X)}.
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

  public static final Key<String> PATH = Key.of(
      "path",
      null,
      ValueParser.of(LimiterKeys::pathPattern, "/exact, /prefix/* or /prefix/**"),
      "path pattern guarded: `/exact`, `/prefix/*` (one segment), `/prefix/**` (any depth); none:"
          + " only handlers wrapped with `sluice.limited(name, handler)`");

  public static final Key<Integer> MAX_CONCURRENCY = Key.of(
      "max-concurrency",
      ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY,
      ValueParser.atLeast(1),
      "permits (fixed limit; ceiling of an adaptive one); reloadable");

  public static final Key<Integer> MAX_QUEUE = Key.of(
      "max-queue",
      ConcurrencyLimiter.DEFAULT_MAX_QUEUE,
      ValueParser.atLeast(0),
      "requests that may wait; one more is answered queue-full; reloadable");

  public static final Key<Duration> QUEUE_TIMEOUT = Key.of(
      "queue-timeout",
      ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT,
      ValueParser.duration(false),
      "longest wait in the queue, then 504; reloadable");

  public static final Key<Scope> SCOPE = Key.of(
      "scope",
      Scope.LOCAL,
      ValueParser.oneOf(Scope.class),
      "`global`: besides the local permit, a lease on one of `max-concurrency` cluster-wide permits"
          + " in the shared store (needs `sluice.redis.uri`)");

  /**
   * The smallest {@code lease-time}: leases are renewed every third of it, and a node that cannot
   * renew for two thirds of it (a pause, a slow store) loses them as if it had died.
   */
  public static final Duration MIN_LEASE_TIME = Duration.ofSeconds(2);

  public static final Key<Duration> LEASE_TIME = Key.of(
      "lease-time",
      ConcurrencyLimiter.DEFAULT_LEASE_TIME,
      ValueParser.durationAtLeast(
          MIN_LEASE_TIME,
          "leases are renewed every third of the lease time and lost by a node that cannot renew"
              + " them for two thirds of it, so a shorter one would count an ordinary GC pause or"
              + " a few slow store calls as the node's death"),
      "`scope=global`: how long a lease outlives its node's last renewal (renewed every third of"
          + " it); reloadable (leases taken after the change)");

  // The adaptive limits: `limit` and these three keys make the core's LimitSpec
  // (LimiterConfig.spec);
  // a change of any of them on reload moves the running limiter to a new source, starting from
  // the limit in force.
  public static final Key<LimitKind> LIMIT = Key.of(
      "limit",
      LimitKind.FIXED,
      ValueParser.oneOf(LimitKind.class),
      "`fixed` (`max-concurrency`), `cpu` (hold `target-cpu`), `latency` (gradient on service"
          + " time); adaptive: `max-concurrency` is the ceiling; reloadable");

  public static final Key<Double> TARGET_CPU = Key.of(
      "target-cpu",
      CpuLimit.DEFAULT_TARGET_CPU,
      ValueParser.fraction(),
      "`limit=cpu`: target utilisation, 0 < x < 1, also written `70%`;" + " reloadable");

  public static final Key<CpuSource> CPU_SOURCE = Key.of(
      "cpu-source",
      CpuSource.MACHINE,
      ValueParser.oneOf(CpuSource.class),
      "`limit=cpu`: `machine` (container-aware) or `process`; reloadable");

  public static final Key<Integer> MIN_CONCURRENCY = Key.of(
      "min-concurrency",
      1,
      ValueParser.atLeast(1),
      "adaptive limits: lower bound (<= `max-concurrency`); reloadable");

  public static final Key<Boolean> REJECT_EARLY = Key.of(
      "reject-early",
      false,
      ValueParser.bool(),
      "`true`: answer 429 at once when the predicted wait (work ahead x mean service time /"
          + " limit) exceeds the queue timeout, and reject a queued request whose deadline"
          + " became unreachable; reloadable");

  public static final Key<Duration> EXPECTED_SERVICE_TIME = Key.of(
      "expected-service-time",
      null,
      ValueParser.duration(false),
      "what one request (of cost 1) is expected to take: seeds the `reject-early` prediction of a"
          + " new limiter, worth four timed requests, one fewer per request timed; empty: learnt"
          + " from the requests alone; reloadable");

  // The queue discipline: the four keys together make the core's QueueSpec and the per-request
  // Caller (QueueSettings, QueueCallers); on reload the core moves the queued requests to the new
  // queue.
  public static final Key<QueueKind> QUEUE = Key.of(
      "queue",
      QueueKind.FIFO,
      ValueParser.oneOf(QueueKind.class),
      "`fifo` or `fair` (round robin across `queue-key`s);"
          + " reloadable, queued requests move to the new queue");

  public static final Key<String> QUEUE_KEY = Key.of(
      "queue-key",
      "ip",
      ValueParser.of(LimiterKeys::queueKey, "ip, account, device, header:NAME"),
      "`queue=fair`: what groups waiters: `ip`, `account`, `device`, `header:NAME` (a request"
          + " without one queues under `unknown`); reloadable");

  public static final Key<Integer> MAX_QUEUE_PER_KEY = Key.of(
      "max-queue-per-key",
      0,
      ValueParser.atLeast(0),
      "`queue=fair`: waiters one key may have (per class), more are"
          + " answered 429 `key_cap`; `0`: no per-key cap; reloadable");

  public static final Key<String> PRIORITY_HEADER = Key.of(
      "priority-header",
      null,
      ValueParser.headerName(),
      "header whose value is `critical`, `normal` or `sheddable` (other values: normal); set: the"
          + " queue has classes, a full queue lets a higher class displace the newest of the"
          + " lowest (429 `displaced`); unset: every request normal; reloadable");

  public static final Key<Duration> QUEUE_DELAY_TARGET = Key.of(
      "queue-delay-target",
      null,
      ValueParser.duration(false),
      "standing-queue control: when the queue has not drained for"
          + " max(100ms, target), newest first and waiters shed at the target (429"
          + " `standing_queue`); empty: off; reloadable");

  public static final Key<String> DEADLINE_HEADER = Key.of(
      "deadline-header",
      null,
      ValueParser.headerName(),
      "header with the client's deadline: milliseconds (`250`) or"
          + " grpc-timeout form (`250m`, `2S`); it shortens the request's queue timeout, one"
          + " already spent is answered 504 `deadline_exceeded` at once, a malformed one is"
          + " ignored and counted; reloadable");

  public static final Key<String> COST = Key.of(
      "cost",
      "1",
      ValueParser.of(LimiterKeys::cost, "a whole number >= 1, header:NAME, query:NAME, learned"),
      "units of the limit a request takes: a number, declared by the client (`header:NAME`,"
          + " `query:NAME`; missing: 1; not a whole number >= 1: 400), or `learned` from service"
          + " times per queue key (or path); more than the limit runs alone; reloadable");

  public static final Key<Integer> COST_SCALE = Key.of(
      "cost-scale",
      1,
      ValueParser.atLeast(1),
      "a declared cost's units per unit of the limit: a request takes declared / cost-scale"
          + " units, rounded, at least 1; reloadable");

  /** Every limiter key, in the README's order. */
  public static final List<Key<?>> ALL = List.of(
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

  public static Key<?> byName(String suffix) {
    for (Key<?> k : ALL) {
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
