package dev.sluice.redis;

import dev.sluice.store.FailurePolicy;
import dev.sluice.time.NanoClock;
import io.github.resilience4j.circuitbreaker.CircuitBreaker;
import io.github.resilience4j.circuitbreaker.CircuitBreakerConfig;
import java.time.Duration;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides, with a Resilience4j {@link CircuitBreaker}, when Redis counts as down. Every store call
 * asks {@link #tryEnter()} first and reports how it ended; while the breaker is open no call reaches
 * Redis (callers get the failure policy at once), and after {@link #OPEN_FOR} a few probe calls go
 * through: when they succeed, global enforcement resumes by itself.
 *
 * <p>Each state change logs one warning, and {@link #state()} shows it for metrics.
 */
final class Guard {

  private static final Logger LOG = LoggerFactory.getLogger(RedisStores.class);

  /** How long Redis stays "down" before probes test it again. */
  static final Duration OPEN_FOR = Duration.ofMillis(500);

  /** How long after "answers again" going down again is not warned about (see logTransition). */
  static final Duration QUIET_FOR = Duration.ofSeconds(30);

  private final String where;
  // guarded by this (state changes are rare)
  private long quietUntil;
  private int unlogged;
  private boolean downLogged;
  private boolean backLogged;
  private final String whileDown;
  private final CircuitBreaker breaker;
  private final LongAdder degraded = new LongAdder();
  private volatile String lastError = "";
  private final java.util.List<Runnable> onDown = new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.List<Runnable> onAnswer =
      new java.util.concurrent.CopyOnWriteArrayList<>();
  private final java.util.List<Runnable> onTimeout =
      new java.util.concurrent.CopyOnWriteArrayList<>();

  private final CallBound bound;
  private final NanoClock ticker;
  /** The breaker's state as last logged; changed only in {@link #transitioned}. */
  private volatile CircuitBreaker.State seen;

  Guard(String where, FailurePolicy policy, int expectedNodes, CallBound bound) {
    this(where, policy, expectedNodes, bound, NanoClock.system());
  }

  /**
   * {@code ticker}: the time {@link #OPEN_FOR} and {@link #QUIET_FOR} are measured on (a virtual one
   * in tests). A monotonic clock, not the wall clock Resilience4j reads by default: a wall clock set
   * back by NTP would keep Redis "down" for as long as it was set back.
   */
  Guard(String where, FailurePolicy policy, int expectedNodes, CallBound bound, NanoClock ticker) {
    this.where = where;
    this.bound = bound;
    this.ticker = ticker;
    this.whileDown = switch (policy) {
      case LOCAL -> "enforced locally at 1/" + expectedNodes + " of each limit";
      case ALLOW -> "allowing every request";
      case DENY -> "denying every request";
    };
    this.breaker = CircuitBreaker.of(
        "sluice-redis " + where,
        CircuitBreakerConfig.custom()
            .slidingWindowType(CircuitBreakerConfig.SlidingWindowType.COUNT_BASED)
            .slidingWindowSize(20)
            .minimumNumberOfCalls(5)
            .failureRateThreshold(50)
            .waitDurationInOpenState(OPEN_FOR)
            .permittedNumberOfCallsInHalfOpenState(3)
            // a Cluster moving a slot answers; a script it still refuses after the retries is
            // decided locally, but Redis does not count as down for it
            .ignoreException(LuaScript::refusedDuringSlotMove)
            .clock(new Ticking(ticker))
            .build());
    // No event consumer: with one, the breaker builds an event (a Duration and a ZonedDateTime of
    // the wall clock) on every call, which is every decision made in Redis. The state is read
    // after each call into the breaker instead, and a change is logged once.
    this.seen = breaker.getState();
  }

  /** A {@link java.time.Clock} on a {@link NanoClock}: the breaker reads only its instants. */
  private static final class Ticking extends java.time.Clock {
    private final NanoClock ticker;
    private final long origin;

    Ticking(NanoClock ticker) {
      this.ticker = ticker;
      this.origin = ticker.nanoTime();
    }

    @Override
    public java.time.Instant instant() {
      // a difference, not the raw value: a nano clock may start anywhere and wrap
      return java.time.Instant.EPOCH.plusNanos(ticker.nanoTime() - origin);
    }

    @Override
    public java.time.ZoneId getZone() {
      return java.time.ZoneOffset.UTC;
    }

    @Override
    public java.time.Clock withZone(java.time.ZoneId zone) {
      throw new UnsupportedOperationException("the breaker's clock has no zone to change");
    }
  }

  /** Runs {@code action} each time Redis starts counting as down (not at each probe cycle). */
  void onDown(Runnable action) {
    onDown.add(action);
  }

  /** Runs {@code action} each time a call is answered in time (keep it to a volatile read). */
  void onAnswer(Runnable action) {
    onAnswer.add(action);
  }

  /** Runs {@code action} each time a call gets no answer in time (not for other failures). */
  void onTimeout(Runnable action) {
    onTimeout.add(action);
  }

  /** Whether a call may go to Redis now; if true, exactly one of succeeded/failed must follow. */
  boolean tryEnter() {
    bound.deciding();
    boolean permitted = breaker.tryAcquirePermission(); // may move open to half-open
    observe();
    return permitted;
  }

  void succeeded(long startNanos) {
    long took = System.nanoTime() - startNanos;
    breaker.onSuccess(took, TimeUnit.NANOSECONDS);
    observe();
    bound.answered(took);
    onAnswer.forEach(Runnable::run);
  }

  void failed(long startNanos, Throwable error) {
    Throwable cause =
        error instanceof CompletionException && error.getCause() != null ? error.getCause() : error;
    lastError = cause.getClass().getSimpleName()
        + (cause.getMessage() == null ? "" : ": " + cause.getMessage());
    breaker.onError(System.nanoTime() - startNanos, TimeUnit.NANOSECONDS, cause);
    observe();
    if (cause instanceof java.util.concurrent.TimeoutException
        || cause instanceof io.lettuce.core.RedisCommandTimeoutException) {
      onTimeout.forEach(Runnable::run);
    }
  }

  /** Counts Redis as down at once (it could not be reached at start-up). */
  void markDown(Throwable error) {
    failed(System.nanoTime(), error);
    breaker.transitionToOpenState();
    observe();
  }

  /** Counts Redis as up at once (tests of what a node does when Redis answers again). */
  void markUp() {
    breaker.transitionToClosedState();
    observe();
  }

  /**
   * Logs a change of the breaker's state since the last one logged: one volatile read when
   * nothing changed. Every call into the breaker is followed by this, on the thread that made it,
   * so a change is seen before that thread's next call; a change and its reversal between two
   * observations (which takes at least {@link #OPEN_FOR} and several calls) would go unseen.
   */
  private void observe() {
    CircuitBreaker.State now = breaker.getState();
    if (now != seen) {
      transitioned();
    }
  }

  private synchronized void transitioned() {
    CircuitBreaker.State now = breaker.getState(); // again: another thread may have logged it
    CircuitBreaker.State from = seen;
    if (from != now) {
      seen = now;
      logTransition(from, now);
    }
  }

  /** Counts one decision made without Redis. */
  void degradedDecision() {
    degraded.increment();
  }

  long degradedDecisions() {
    return degraded.sum();
  }

  RedisState state() {
    return switch (breaker.getState()) {
      case CLOSED, DISABLED, METRICS_ONLY -> RedisState.UP;
      case HALF_OPEN -> RedisState.PROBING;
      case OPEN, FORCED_OPEN -> RedisState.DOWN;
    };
  }

  String describe() {
    RedisState state = state();
    return switch (state) {
      case UP -> where + " (up)";
      case DOWN, PROBING ->
        where + " (" + state.name().toLowerCase(java.util.Locale.ROOT) + ", " + whileDown
            + "; last error " + lastError + ")";
    };
  }

  /**
   * One warning when Redis goes down and one when it is back. The probe cycle in between (open,
   * half-open, open again every {@link #OPEN_FOR} during a long outage) logs at debug only, so an
   * outage does not flood the log. A Redis that comes and goes (a lossy link: 27 pairs of warnings
   * in 40 s) logs one pair per {@link #QUIET_FOR}: going down again within that time of the last
   * "answers again" is logged at debug and counted, and the next warning says how often.
   */
  private synchronized void logTransition(CircuitBreaker.State from, CircuitBreaker.State to) {
    long now = ticker.nanoTime();
    if (from == CircuitBreaker.State.CLOSED) {
      onDown.forEach(Runnable::run);
      if (backLogged && now - quietUntil < 0) {
        unlogged++;
        LOG.debug("Redis at {} counts as down again ({})", where, lastError);
        return;
      }
      LOG.warn(
          "Redis at {} counts as down ({}): global rules are {}{}",
          where,
          lastError,
          whileDown,
          unlogged == 0
              ? ""
              : "; it went down " + unlogged + " more time(s) since the last warning");
      unlogged = 0;
      downLogged = true;
    } else if (to == CircuitBreaker.State.CLOSED) {
      if (!downLogged) {
        LOG.debug("Redis at {} answers again", where);
        return;
      }
      LOG.warn("Redis at {} answers again: global rules are enforced in Redis", where);
      downLogged = false;
      quietUntil = now + QUIET_FOR.toNanos();
      backLogged = true;
    } else {
      LOG.debug("Redis at {}: {} -> {}", where, from, to);
    }
  }
}
