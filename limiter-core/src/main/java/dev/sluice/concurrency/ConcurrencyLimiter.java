package dev.sluice.concurrency;

import dev.sluice.store.PermitStore;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

/**
 * Caps how many jobs run at once: {@code maxConcurrency} permits, and a bounded FIFO queue of
 * {@code maxQueue} callers waiting for one, each for at most {@code queueTimeout}.
 *
 * <ul>
 *   <li>A free permit and nobody waiting: admitted at once. Otherwise the caller joins the queue if
 *       it has room ({@link Outcome#QUEUE_FULL} at once if not). No barging: a newcomer never
 *       overtakes a waiter.
 *   <li>Waiting holds no thread: {@link #acquire()} returns a future. A released permit goes
 *       straight to the head waiter, whose future is completed on the configured executor, never
 *       inline on the releasing thread.
 *   <li>A waiter past its {@code queueTimeout} fails with {@link Outcome#QUEUE_TIMEOUT}; cancelling
 *       its future removes it from the queue at once. A permit that races a timeout or a cancel is
 *       handed on, never lost.
 *   <li>{@link #shutdown()} rejects the queue and every later caller with {@link Outcome#SHUTDOWN}
 *       and lets in-flight jobs finish; {@link #awaitDrained(Duration)} waits for them.
 * </ul>
 *
 * <pre>{@code
 * ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("transcode")
 *     .maxConcurrency(4).maxQueue(32).queueTimeout(Duration.ofSeconds(60)).build();
 * limiter.acquire().thenAccept(permit -> { try (permit) { transcode(); } });
 * }</pre>
 */
public interface ConcurrencyLimiter {

  /** Default number of permits. */
  int DEFAULT_MAX_CONCURRENCY = 4;

  /** Default number of waiting slots. */
  int DEFAULT_MAX_QUEUE = 32;

  /** Default longest wait in the queue. */
  Duration DEFAULT_QUEUE_TIMEOUT = Duration.ofSeconds(60);

  /**
   * Default lease time of a global limiter's permits: how long the permits of a node that died
   * stay taken (held leases are renewed while their jobs run).
   */
  Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(30);

  /**
   * Starts building a limiter.
   *
   * @param name the limiter's name, used in metrics and messages; must not be blank
   */
  static Builder builder(String name) {
    return new LimiterBuilder(name);
  }

  /** The limiter's name. */
  String name();

  /**
   * Asks for a permit. The future completes with a {@link Permit} (at once, or on the executor
   * when a waiter is granted one), or exceptionally with a {@link ConcurrencyRejectedException}.
   * Cancelling this future (not a stage derived from it) while queued removes the caller from the
   * queue; if a permit was granted in the same instant, it is released and handed on.
   */
  default CompletableFuture<Permit> acquire() {
    return acquire(Caller.DEFAULT);
  }

  /**
   * Asks for a permit on behalf of {@code caller}: its key and class matter to the queue
   * discipline, its timeout (if shorter than {@code queueTimeout}) bounds its wait. Otherwise as
   * {@link #acquire()}.
   */
  CompletableFuture<Permit> acquire(Caller caller);

  /**
   * A permit if one is free and nobody is waiting; never queues. A refusal counts as {@code
   * QUEUE_FULL} (or {@code SHUTDOWN}) in the statistics.
   */
  Optional<Permit> tryAcquire();

  /**
   * Waits for a permit, blocking the calling thread.
   *
   * @throws ConcurrencyRejectedException when not admitted
   * @throws InterruptedException when interrupted while queued; the caller leaves the queue
   */
  Permit acquireBlocking() throws InterruptedException;

  /**
   * Changes the number of permits. Growing admits waiters at once; shrinking revokes nothing but
   * admits nobody until in-flight falls under the new limit.
   *
   * @param limit at least 1
   */
  void setMaxConcurrency(int limit);

  /**
   * Changes the number of waiting slots. Callers already queued keep their place; the new bound
   * applies to newcomers.
   *
   * @param maxQueue at least 0
   */
  void setMaxQueue(int maxQueue);

  /** The current limit, gauges, counters and timings; cheap, takes no lock. */
  ConcurrencySnapshot snapshot();

  /**
   * Stops admitting: every queued caller and every later caller is rejected with {@link
   * Outcome#SHUTDOWN}. Permits already granted stay valid until released. Idempotent.
   */
  void shutdown();

  /**
   * Waits, blocking, until no permit is held.
   *
   * @return whether in-flight reached 0 within {@code timeout}
   */
  boolean awaitDrained(Duration timeout) throws InterruptedException;

  /** Whether {@link #shutdown()} was called. */
  boolean isShutdown();

  /**
   * For a limiter whose permits are shared by every node ({@link Builder#permitStore}): how many
   * leases the whole cluster holds, as last read from the store (every half second). Empty for a
   * local limiter, or while the store cannot tell. {@link #snapshot()}'s {@code inFlight} is this
   * node's share of them.
   */
  default OptionalInt clusterLeases() {
    return OptionalInt.empty();
  }

  /**
   * Configures a limiter. Every setter checks its value at once and throws {@link
   * IllegalArgumentException} naming the setting and the value, e.g. {@code "maxConcurrency must be
   * >= 1 but was 0"}.
   */
  interface Builder {

    /** Permits, at least 1; default {@value ConcurrencyLimiter#DEFAULT_MAX_CONCURRENCY}. */
    Builder maxConcurrency(int n);

    /** Waiting slots, at least 0; default {@value ConcurrencyLimiter#DEFAULT_MAX_QUEUE}. */
    Builder maxQueue(int n);

    /** Longest wait in the queue, positive; default 60 seconds. */
    Builder queueTimeout(Duration d);

    /** Source of time; default {@link NanoClock#system()}. */
    Builder clock(NanoClock c);

    /** Runs queue timeouts; default {@link Scheduler#system()}. */
    Builder scheduler(Scheduler s);

    /**
     * Where waiters' futures are completed (so where their continuations run); default {@link
     * java.util.concurrent.ForkJoinPool#commonPool()}.
     */
    Builder executor(Executor e);

    /** Callbacks for metrics or logging; default none. */
    Builder listener(ConcurrencyListener l);

    /**
     * Where the limit comes from; default {@link LimitSource#fixed} of {@link #maxConcurrency}.
     * The limiter calls {@link LimitSource#start} when built. One source per limiter.
     */
    Builder limitSource(LimitSource source);

    /** The queue discipline; default {@link WaitQueue#fifo()}. One queue per limiter. */
    Builder waitQueue(WaitQueue queue);

    /**
     * Makes the limit global: {@code maxConcurrency} permits shared by every node that builds a
     * limiter of the same name on the same store, each held as a lease. A caller queues on this
     * node (with this builder's queue bound, discipline and timeout) and then in the store's
     * cluster-wide line until a lease is free, holding no thread; {@code QUEUE_FULL} only when this
     * node's queue is full. Every node must configure the same {@code maxConcurrency}. The store is
     * not closed by the limiter. Default: none, a local limiter.
     */
    Builder permitStore(PermitStore store);

    /**
     * With {@link #permitStore}: how long a lease lives unless renewed (the store renews held
     * leases), i.e. how long a dead node's permits stay taken; at least 1 ms, default 30 s.
     */
    Builder leaseTime(Duration d);

    /** A new limiter with these settings. */
    ConcurrencyLimiter build();
  }
}
