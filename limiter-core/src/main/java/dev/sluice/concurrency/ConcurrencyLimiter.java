package dev.sluice.concurrency;

import dev.sluice.concurrency.internal.Engine;
import dev.sluice.store.PermitStore;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.Callable;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

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
 * <p>A limiter is configured one way: a {@link LimiterSpec} (every setting, immutable) handed to
 * {@link #of} or {@link Builder#spec}, and changed while it runs by {@link #reconfigure} with the
 * next spec. The {@link Builder} adds only what is not configuration: the clock, scheduler,
 * executor, listener and store it runs on.
 *
 * <pre>{@code
 * ConcurrencyLimiter limiter = ConcurrencyLimiter.of("transcode", LimiterSpec.custom()
 *     .maxConcurrency(4).maxQueue(32).queueTimeout(Duration.ofSeconds(60)).build());
 * limiter.acquire().thenAccept(permit -> { try (permit) { transcode(); } });
 * limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(8).build());
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
   * Default lease time of a global limiter's permits: how long the permits of a node that died (or
   * that cannot renew them: paused, cut off from the store) stay taken. Held leases are renewed
   * every third of it while their jobs run, so a node may miss two renewals in a row; a lease that
   * expired under a running job is written again when its node renews (see limiter-redis's
   * README, "Leases").
   */
  Duration DEFAULT_LEASE_TIME = Duration.ofSeconds(3);

  /**
   * Starts building a limiter: its settings come from {@link Builder#spec}, the builder's other
   * methods set what it runs on.
   *
   * @param name the limiter's name, used in metrics and messages; must not be blank
   */
  static Builder builder(String name) {
    return Engine.builder(name);
  }

  /**
   * A limiter of {@code spec} with the system clock, scheduler and the common pool; {@link
   * #builder} sets those (and a listener, or a store for global permits).
   */
  static ConcurrencyLimiter of(String name, LimiterSpec spec) {
    return builder(name).spec(spec).build();
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
   * A permit at once if one is free and nobody is waiting, else null, and then nothing is counted:
   * the caller goes on to {@link #acquire(Caller)}, which queues, rejects and counts. For hot paths
   * that should not allocate a completed future per admission. The default answers null (always
   * the full path), which is correct for any implementation.
   */
  default Permit acquireIfFree() {
    return null;
  }

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

  /** The configuration in force: the spec it was built with, as changed since by {@link #reconfigure}. */
  LimiterSpec spec();

  /**
   * Moves a running limiter to {@code next}, applying every difference from {@link #spec()} that
   * it can apply live, and returning what it did. This is the one way to change a running
   * limiter; to change one setting, start from the spec in force:
   *
   * <pre>{@code
   * limiter.reconfigure(LimiterSpec.from(limiter.spec()).maxConcurrency(8).build());
   * }</pre>
   *
   * What each difference does:
   *
   * <ul>
   *   <li>{@code maxConcurrency}: the limit of a fixed limit, the ceiling of an adaptive one;
   *       growing admits waiters at once, shrinking revokes nothing.
   *   <li>{@code limit} (another strategy, or other settings of it): a new source from {@link
   *       dev.sluice.concurrency.limit.LimitSpec#newSource}, started before the old one is
   *       stopped, starting from the limit in force so the switch does not jump; permits held
   *       stay valid and count against the new limit.
   *   <li>{@code queue}: the waiters move to a new queue from {@link QueueSpec#newQueue}, in the
   *       order the old one would have granted them, keeping their timeouts; none is refused by
   *       the move (a per-key cap or the classes apply to newcomers).
   *   <li>{@code maxQueue}, {@code queueTimeout}, {@code rejectEarly}, {@code leaseTime}: apply to
   *       callers (leases) that come after.
   *   <li>{@code expectedServiceTime}: seeds the wait prediction at once, with the weight left
   *       (four jobs, one fewer per job timed: none once four were timed).
   * </ul>
   *
   * Whether the limit or the queue changed is told by {@code equals} of {@link LimiterSpec#limit()}
   * and {@link LimiterSpec#queue()}. The built-in ones are values: equal settings, equal specs. A
   * strategy of your own ({@link dev.sluice.concurrency.limit.LimitSpec#of}, {@link QueueSpec#of})
   * is equal only to itself: a spec that carries the same instance on (as {@link
   * LimiterSpec#from} does) keeps the running source or queue, while another instance, even of
   * the same factory, is a change and builds a new one from its factory as above.
   *
   * <p>A change that cannot be applied (a limiter that was shut down) is listed in {@link
   * Reconfiguration#needsRestart()} and leaves the spec in force as it was. Reconfiguring with an
   * equal spec does nothing.
   */
  Reconfiguration reconfigure(LimiterSpec next);

  /**
   * The current number of permits, without building a {@link #snapshot()} (a hot path may read it
   * per request).
   */
  default int limit() {
    return snapshot().limit();
  }

  /** The current limit, gauges, counters and timings; cheap, takes no lock. */
  ConcurrencySnapshot snapshot();

  /**
   * Waiters by class and key, and the key-cap and displacement counts (see {@link WaitQueue}).
   * Takes the limiter's lock briefly (the queue is not thread-safe): for a metrics scrape, not for
   * every request. By default, every waiter as {@link Priority#NORMAL} and no finer counts.
   */
  default QueueSnapshot queueSnapshot() {
    return new QueueSnapshot(0, snapshot().queued(), 0, 0, 0, 0);
  }

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
   * Runs an asynchronous job under a permit, without blocking: waits for a permit (holding no
   * thread), then calls {@code job} on the thread that granted it, and releases the permit when the
   * job's stage completes, however it completes (also when {@code job} throws or returns null).
   *
   * <pre>{@code
   * CompletionStage<Report> report = limiter.executeCompletionStage(() -> client.fetchAsync(id));
   * }</pre>
   *
   * <p>Cancelling the returned future while the caller still waits for a permit leaves the queue;
   * once the job runs, its permit is held until the job's own stage completes.
   *
   * @return the job's result, or a failure with {@link ConcurrencyRejectedException} when not
   *     admitted, or with whatever the job failed with
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  default <T> CompletableFuture<T> executeCompletionStage(
      Supplier<? extends CompletionStage<T>> job) {
    Objects.requireNonNull(job, "job must not be null");
    CompletableFuture<Permit> acquired = acquire();
    CompletableFuture<T> result = new CompletableFuture<>();
    acquired.whenComplete((permit, failure) -> {
      if (failure != null) {
        result.completeExceptionally(
            failure instanceof CompletionException c && c.getCause() != null
                ? c.getCause()
                : failure);
        return;
      }
      if (result.isDone()) { // cancelled while the grant was on its way: nothing will run
        permit.release();
        return;
      }
      CompletionStage<T> stage;
      try {
        stage = Objects.requireNonNull(job.get(), "the job returned a null stage");
      } catch (Throwable t) {
        permit.release();
        result.completeExceptionally(t);
        return;
      }
      stage.whenComplete((value, error) -> {
        permit.release(); // before completing: a continuation of the result may ask for a permit
        if (error != null) {
          result.completeExceptionally(error);
        } else {
          result.complete(value);
        }
      });
    });
    result.whenComplete((value, error) -> {
      if (result.isCancelled()) {
        acquired.cancel(false); // leaves the queue; a permit granted meanwhile is handed on
      }
    });
    return result;
  }

  /**
   * A supplier that runs {@code job} under a permit, blocking the calling thread while it waits
   * (at most the limiter's {@code queueTimeout}) and releasing the permit when {@code job} returns
   * or throws. For platform threads this holds a thread per waiter, like Resilience4j's Bulkhead;
   * prefer {@link #acquire()} or {@link #executeCompletionStage} where waiting callers are many.
   *
   * @return a supplier that throws {@link ConcurrencyRejectedException} when not admitted, and
   *     {@link java.util.concurrent.CancellationException} (with the thread's interrupt flag set
   *     again) when interrupted while waiting
   */
  default <T> Supplier<T> decorateSupplier(Supplier<T> job) {
    Objects.requireNonNull(job, "job must not be null");
    return () -> {
      Permit permit;
      try {
        permit = acquireBlocking();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        CancellationException cancelled = new CancellationException(
            "interrupted while waiting for a permit of limiter '" + name() + "'");
        cancelled.initCause(e);
        throw cancelled;
      }
      try (permit) {
        return job.get();
      }
    };
  }

  /**
   * A callable that runs {@code job} under a permit, as {@link #decorateSupplier}; an interrupt
   * while waiting is thrown as the {@link InterruptedException} itself.
   */
  @SuppressWarnings("try") // the permit is held while the job runs and released by the try
  default <T> Callable<T> decorateCallable(Callable<T> job) {
    Objects.requireNonNull(job, "job must not be null");
    return () -> {
      try (Permit permit = acquireBlocking()) {
        return job.call();
      }
    };
  }

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
   * Builds a limiter from a {@link LimiterSpec} and what it runs on. The spec is the one way to
   * configure a limiter (the limit, the queue and its discipline, the timeouts, early rejection,
   * the lease time): this builder takes it whole through {@link #spec} and sets only the runtime
   * collaborators, which do not change while the limiter lives. Settings change later through
   * {@link ConcurrencyLimiter#reconfigure}.
   *
   * <pre>{@code
   * ConcurrencyLimiter limiter = ConcurrencyLimiter.builder("transcode")
   *     .spec(LimiterSpec.custom().maxConcurrency(4).maxQueue(32).build())
   *     .executor(executor)
   *     .listener(listener)
   *     .build();
   * }</pre>
   */
  interface Builder {

    /** Every setting of the limiter; default {@link LimiterSpec#ofDefaults()}. */
    Builder spec(LimiterSpec spec);

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
     * Makes the limit global: {@code maxConcurrency} permits shared by every node that builds a
     * limiter of the same name on the same store, each held as a lease (for the spec's {@link
     * LimiterSpec#leaseTime()}). A caller queues on this node (with the spec's queue bound,
     * discipline and timeout) and then in the store's cluster-wide line until a lease is free,
     * holding no thread; {@code QUEUE_FULL} only when this node's queue is full. Every node must
     * configure the same {@code maxConcurrency}. The store is not closed by the limiter. Default:
     * none, a local limiter.
     */
    Builder permitStore(PermitStore store);

    /** A new limiter with these settings. */
    ConcurrencyLimiter build();
  }
}
