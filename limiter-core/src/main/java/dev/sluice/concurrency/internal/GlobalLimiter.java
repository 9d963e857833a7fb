package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.Reconfiguration;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.store.PermitStore;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A concurrency limiter whose permits are shared by every node through a {@link PermitStore}: at
 * most {@code maxConcurrency} jobs run at once across the cluster, each holding a lease.
 *
 * <h2>Two stages, one deadline</h2>
 *
 * A caller first takes a permit of this node's local limiter ({@link BoundedQueueLimiter}, with the
 * same limit, queue bound, queue discipline and timeout): that is this node's queue, and no node
 * can run or ask for more than the global limit. Holding it, the caller asks the store for a lease
 * with its own ticket. A refused caller waits, holding no thread, in this node's line and in the
 * store's cluster-wide line of tickets, and asks again whenever the store says a lease may have come
 * free ({@link PermitStore#watch}), when a permit of this node is released, and every {@link
 * #POLL} as a safety net, until it gets a lease (admitted) or its deadline passes ({@link
 * Outcome#QUEUE_TIMEOUT}). {@code maxQueue} bounds this node's waiters together, those in its
 * queue and those holding a local permit while they wait for a lease: a caller is refused ({@link
 * Outcome#QUEUE_FULL}) when every such place is taken, at once or, if it found a local permit free,
 * when its first question is refused.
 *
 * <p>The cluster-wide line is what keeps nodes fair: a lease freed on a busy node goes to the
 * oldest ticket in the cluster, not to whichever node asks first.
 *
 * <p>Release gives the lease back (the store then tells the waiting nodes), then the local permit.
 * Release is idempotent; a lease that arrives for a caller that has already timed out or cancelled
 * is given back at once; a lease whose holder dies expires in the store after its lease time.
 */
final class GlobalLimiter implements ConcurrencyLimiter {

  /** How often waiters ask again when no notification came: the safety net, not the hand-off. */
  static final Duration POLL = Duration.ofMillis(500);

  private final String name;
  private final BoundedQueueLimiter local;
  private final PermitStore store;
  /** Reconfigurable: applies to the leases taken after a change. */
  private volatile Duration leaseTime;

  private final NanoClock clock;
  private final Scheduler scheduler;
  private final Executor executor;
  private final GuardedListener listener;
  /** Reconfigurable: applies to callers arriving after a change. */
  private volatile long queueTimeoutNanos;

  private final LimiterStats stats = new LimiterStats();
  /** Tickets are unique in the cluster: a random node id and a sequence. */
  private final String node = UUID.randomUUID().toString();

  private final AtomicLong tickets = new AtomicLong();
  private final AtomicInteger running = new AtomicInteger();
  private final AtomicLong admitted = new AtomicLong();

  // the callers of this node that hold a local permit and wait for a lease, oldest first; a lock
  // because joining, leaving from the middle and copying for a wake-up must agree, and the
  // sections are a few set operations (no store call, no user code under it)
  private final Object lineLock = new Object();
  private final LinkedHashSet<GlobalAcquire> line = new LinkedHashSet<>();
  /** Guarded by the line lock: the callers in {@link #line} counted as queued (refused once). */
  private int waitingInLine;

  /**
   * The units of the local permits held by admitted callers. The local permits held beyond them
   * belong to callers that wait for a lease (or ask for their first): the local stage counts them
   * against {@code maxQueue} beside its own queue. Raised after the caller left the line, lowered
   * before its local permit is given back, so it never counts a waiter as running.
   */
  private final AtomicInteger runningUnits = new AtomicInteger();

  private volatile int clusterLeases = -1;
  private volatile boolean stopped;
  private volatile Scheduler.Cancellable poll;
  private final PermitStore.Watch watch;

  GlobalLimiter(LimiterBuilder config, LimiterSpec spec, LimitSource limit, WaitQueue queue) {
    this.name = config.name;
    this.store = config.permitStore;
    this.leaseTime = spec.leaseTime();
    this.clock = config.clock;
    this.scheduler = config.scheduler;
    this.executor = config.executor;
    this.listener =
        config.listener == null ? null : new GuardedListener(config.name, config.listener);
    this.queueTimeoutNanos = AdmissionPolicy.saturatedNanos(spec.queueTimeout());
    // the local stage reports nothing itself: admission means holding a lease, counted here
    this.local = new BoundedQueueLimiter(config.withoutListener(), spec, limit, queue);
    // maxQueue bounds every waiter of this node: its queue and the callers waiting for a lease
    local.countWaitingOutside(inFlight -> Math.max(0, inFlight - runningUnits.get()));
    this.watch = store.watch(name, this::wake);
    schedulePoll();
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  public CompletableFuture<Permit> acquire(Caller caller) {
    Objects.requireNonNull(caller, "caller must not be null");
    GlobalAcquire acquire = new GlobalAcquire(
        this,
        caller,
        clock.nanoTime(),
        AdmissionPolicy.timeoutNanos(caller, queueTimeoutNanos),
        node + ':' + tickets.incrementAndGet());
    acquire.callingThread = Thread.currentThread();
    try {
      CompletableFuture<Permit> localStage = local.acquire(caller);
      acquire.local = localStage;
      if (!localStage.isDone()) {
        stats.queuedTotal.increment();
        acquire.countedQueued = true;
        if (listener != null) {
          listener.queued();
        }
      }
      localStage.whenComplete((permit, error) -> onLocal(acquire, permit, error));
      return acquire;
    } finally {
      acquire.callingThread = null;
    }
  }

  /** The local stage ended: a local permit (ask the store for a lease) or a rejection. */
  private void onLocal(GlobalAcquire acquire, Permit permit, Throwable error) {
    if (error != null) {
      // the local stage's own future, not a stage derived from it: its failure comes as thrown,
      // a rejection or the cancellation of its waiter, never wrapped in a CompletionException
      Outcome outcome = error instanceof ConcurrencyRejectedException rejected
          ? rejected.outcome()
          : Outcome.CANCELLED;
      if (acquire.decide(outcome)) {
        // the local stage's reason (key cap, displaced, predicted wait) is the caller's reason
        rejected(
            acquire,
            outcome,
            error instanceof ConcurrencyRejectedException rejected
                ? rejected.reason()
                : reasonOf(outcome));
        if (outcome != Outcome.CANCELLED) {
          complete(acquire, () -> acquire.completeExceptionally(error));
        }
      }
      return;
    }
    // published before the fate is read; abandon does the mirror image, so the permit is
    // released by one of them (or both: release is idempotent), never by neither
    acquire.localPermit = permit;
    if (!acquire.isWaiting()) {
      permit.release();
      return;
    }
    synchronized (lineLock) {
      if (line.add(acquire) && acquire.countedQueued) {
        waitingInLine++; // it queued here: it keeps its place in the bound while it waits on
      }
    }
    if (stopped) {
      abandon(acquire, Outcome.SHUTDOWN);
      return;
    }
    if (acquire.timeoutNanos != Long.MAX_VALUE) {
      long left = acquire.timeoutNanos - (clock.nanoTime() - acquire.arrivedNanos);
      acquire.timeoutScheduled(
          scheduler.schedule(() -> abandon(acquire, Outcome.QUEUE_TIMEOUT), Math.max(0, left)));
    }
    ask(acquire);
  }

  /** Asks the store for the caller's lease; at most one question per caller in flight. */
  private void ask(GlobalAcquire acquire) {
    synchronized (lineLock) {
      if (!acquire.isWaiting()) {
        return;
      }
      if (acquire.asking) {
        acquire.askAgain = true; // the answer in flight may predate the news: ask once more
        return;
      }
      acquire.asking = true;
    }
    CompletionStage<Optional<PermitLease>> answer;
    try {
      answer = store.tryAcquire(name, local.limit(), leaseTime, acquire.ticket);
    } catch (RuntimeException e) {
      answer = CompletableFuture.completedFuture(Optional.empty()); // the next poll asks again
    }
    answer.whenComplete((lease, error) -> answered(acquire, lease, error));
  }

  private void answered(GlobalAcquire acquire, Optional<PermitLease> lease, Throwable error) {
    boolean held = error == null && lease != null && lease.isPresent();
    boolean granted = held && grant(acquire, lease.get());
    if (held && !granted) {
      lease.get().release(); // the caller left meanwhile: the lease goes back at once
    } else if (!held && !acquire.isWaiting()) {
      // the caller left while the question was in flight: its leave may have reached the store
      // before the refusal put the ticket in line, where it would stand ahead of every waiter
      store.leave(name, acquire.ticket);
    }
    if (!granted && !acquire.countedQueued && acquire.isWaiting()) {
      if (startWaiting(acquire)) {
        stats.queuedTotal.increment();
        if (listener != null) {
          listener.queued();
        }
      } else {
        abandon(acquire, Outcome.QUEUE_FULL); // every waiting place of this node is taken
      }
    }
    boolean again;
    synchronized (lineLock) {
      acquire.asking = false;
      again = acquire.askAgain && acquire.isWaiting();
      acquire.askAgain = false;
    }
    if (again) {
      ask(acquire);
    }
  }

  /**
   * A caller that took a free local permit at once was refused its first lease: it waits only if
   * a waiting place is free ({@code maxQueue} bounds this node's queue and its lease waiters
   * together). The local stage counted its permit against the bound while it asked, so callers
   * that joined the queue meanwhile left it a place.
   */
  private boolean startWaiting(GlobalAcquire acquire) {
    synchronized (lineLock) {
      if (!line.contains(acquire)) {
        return true; // it left meanwhile; its leave is counted there
      }
      if (waitingInLine + BoundedQueueLimiter.queued(local.state)
          >= local.spec().maxQueue()) {
        return false;
      }
      acquire.countedQueued = true;
      waitingInLine++;
      return true;
    }
  }

  /** Takes a caller out of this node's line of lease waiters, if it is in it. */
  private void leaveLine(GlobalAcquire acquire) {
    synchronized (lineLock) {
      if (line.remove(acquire) && acquire.countedQueued) {
        waitingInLine--;
      }
    }
  }

  private static int unitsOf(Permit localPermit) {
    return localPermit instanceof GrantedPermit granted ? granted.units : 1;
  }

  private boolean grant(GlobalAcquire acquire, PermitLease lease) {
    if (!acquire.decide(Outcome.ADMITTED)) {
      return false;
    }
    leaveLine(acquire);
    runningUnits.addAndGet(unitsOf(acquire.localPermit));
    acquire.cancelTimeout();
    long now = clock.nanoTime();
    long waited = acquire.countedQueued ? now - acquire.arrivedNanos : 0;
    running.incrementAndGet();
    admitted.incrementAndGet();
    if (acquire.countedQueued) {
      stats.leftQueue(waited);
    }
    if (listener != null) {
      listener.admitted(waited);
    }
    LeasedPermit permit = new LeasedPermit(this, acquire.localPermit, lease, now, waited);
    complete(acquire, () -> {
      if (!acquire.complete(permit)) {
        permit.release(); // cancelled between the grant and its delivery
      }
    });
    return true;
  }

  /**
   * Ends a caller's wait without a lease: its timeout (scheduler), a cancel (its future) or
   * shutdown. Gives back the local permit, or leaves the local queue, and leaves the store's line.
   */
  void abandon(GlobalAcquire acquire, Outcome outcome) {
    if (!acquire.decide(outcome)) {
      return;
    }
    if (outcome != Outcome.QUEUE_TIMEOUT) {
      acquire.cancelTimeout();
    }
    leaveLine(acquire);
    Permit held = acquire.localPermit;
    if (held != null) {
      held.release();
      store.leave(name, acquire.ticket);
    } else {
      CompletableFuture<Permit> queued = acquire.local;
      if (queued != null) {
        queued.cancel(false); // leaves the local queue; a permit granted meanwhile is handed on
      }
    }
    rejected(acquire, outcome);
    if (outcome != Outcome.CANCELLED) {
      ConcurrencyRejectedException rejected =
          new ConcurrencyRejectedException(outcome, name, retryAfterNanos(0));
      complete(acquire, () -> acquire.completeExceptionally(rejected));
    }
  }

  private void rejected(GlobalAcquire acquire, Outcome outcome) {
    rejected(acquire, outcome, reasonOf(outcome));
  }

  private void rejected(GlobalAcquire acquire, Outcome outcome, RejectionReason reason) {
    long waited = 0;
    if (acquire.countedQueued) {
      waited = clock.nanoTime() - acquire.arrivedNanos;
      stats.leftQueue(waited);
    }
    stats.rejected(outcome);
    if (outcome == Outcome.QUEUE_FULL && acquire.countedQueued) {
      stats.rejectedLate.increment(); // it had queued: a late answer, counted apart
    }
    if (listener != null) {
      listener.rejected(outcome, reason, waited);
    }
  }

  /** The listener's reason for an outcome of the global line: none for a cancel. */
  private static RejectionReason reasonOf(Outcome outcome) {
    return outcome == Outcome.CANCELLED ? null : RejectionReason.of(outcome);
  }

  /** Called once per permit by {@link LeasedPermit#release()}. */
  void release(LeasedPermit permit) {
    long serviceNanos = clock.nanoTime() - permit.admittedAtNanos();
    stats.timed(serviceNanos);
    running.decrementAndGet();
    stats.released.increment();
    if (listener != null) {
      listener.released(serviceNanos);
    }
    // the lease first: the store tells every waiting node; then the local permit, which lets the
    // head of this node's queue ask for a lease too
    // no longer running before its local permit is free: never counted as a lease waiter
    runningUnits.addAndGet(-unitsOf(permit.local()));
    try {
      permit.lease().release();
    } finally {
      permit.local().release();
    }
    wake();
  }

  /** Every caller in this node's line asks again (a lease may have come free). */
  private void wake() {
    List<GlobalAcquire> waiting;
    synchronized (lineLock) {
      if (line.isEmpty()) {
        return;
      }
      waiting = new ArrayList<>(line);
    }
    waiting.forEach(this::ask);
  }

  private void schedulePoll() {
    if (stopped) {
      return;
    }
    poll = scheduler.schedule(
        () -> {
          if (stopped) {
            return;
          }
          try {
            wake();
            store
                .held(name)
                .whenComplete(
                    (held, error) -> clusterLeases = error != null || held == null ? -1 : held);
          } finally {
            schedulePoll();
          }
        },
        POLL.toNanos());
  }

  /**
   * Completes a caller's future: inline while still inside its {@link #acquire} call (nobody can
   * have chained anything yet), otherwise on the executor, never on the store's or the
   * scheduler's thread.
   */
  private void complete(GlobalAcquire acquire, Runnable completion) {
    if (acquire.callingThread == Thread.currentThread()) {
      completion.run();
      return;
    }
    try {
      executor.execute(completion);
    } catch (RejectedExecutionException e) {
      completion.run(); // better than stranding the caller, and a lease, forever
    }
  }

  /**
   * Never queues: succeeds only when a local permit is free and the store grants a lease at once
   * (synchronously). A store across the network answers later, so with Redis this is nearly
   * always empty; use {@link #acquire()}.
   */
  @Override
  // a failed acquire holds no permit, so there is nothing to release
  @SuppressWarnings("FutureReturnValueIgnored")
  public Optional<Permit> tryAcquire() {
    Optional<Permit> localPermit = local.tryAcquire();
    if (localPermit.isEmpty()) {
      Outcome outcome = isShutdown() ? Outcome.SHUTDOWN : Outcome.QUEUE_FULL;
      stats.rejected(outcome);
      if (listener != null) {
        listener.rejected(outcome, reasonOf(outcome), 0);
      }
      return Optional.empty();
    }
    CompletableFuture<Optional<PermitLease>> answer;
    try {
      answer = store.tryAcquire(name, local.limit(), leaseTime).toCompletableFuture();
    } catch (RuntimeException e) {
      answer = CompletableFuture.completedFuture(Optional.empty());
    }
    if (answer.isDone() && !answer.isCompletedExceptionally() && answer.join().isPresent()) {
      runningUnits.addAndGet(unitsOf(localPermit.get()));
      running.incrementAndGet();
      admitted.incrementAndGet();
      if (listener != null) {
        listener.admitted(0);
      }
      return Optional.of(
          new LeasedPermit(this, localPermit.get(), answer.join().get(), clock.nanoTime(), 0));
    }
    localPermit.get().release();
    answer.thenAccept(late -> late.ifPresent(PermitLease::release));
    stats.rejected(Outcome.QUEUE_FULL);
    if (listener != null) {
      listener.rejected(Outcome.QUEUE_FULL, RejectionReason.QUEUE_FULL, 0);
    }
    return Optional.empty();
  }

  @Override
  public Permit acquireBlocking() throws InterruptedException {
    return Blocking.await(name, acquire());
  }

  @Override
  public LimiterSpec spec() {
    return local.spec();
  }

  /**
   * The local stage holds the limit source and the queue: adaptive limits, early rejection and
   * queue disciplines work as on a local limiter, and the store is asked for leases against the
   * limit in force.
   */
  @Override
  public Reconfiguration reconfigure(LimiterSpec next) {
    Reconfiguration done = local.reconfigure(next);
    LimiterSpec inForce = done.inForce();
    leaseTime = inForce.leaseTime();
    queueTimeoutNanos = AdmissionPolicy.saturatedNanos(inForce.queueTimeout());
    wake(); // a higher limit: waiters ask the store again at once
    return done;
  }

  /** The node's queue: the discipline (fair, classes) applies to the callers waiting here. */
  @Override
  public QueueSnapshot queueSnapshot() {
    return local.queueSnapshot();
  }

  @Override
  public OptionalInt clusterLeases() {
    int held = clusterLeases;
    return held < 0 ? OptionalInt.empty() : OptionalInt.of(held);
  }

  /**
   * {@code inFlight} is this node's callers holding a lease; {@code queued} counts the callers in
   * this node's queue and those holding a local permit while they wait for a lease (refused one at
   * least once), never more than {@code maxQueue} together. The cluster's leases are {@link
   * #clusterLeases()}.
   */
  @Override
  public ConcurrencySnapshot snapshot() {
    ConcurrencySnapshot l = local.snapshot();
    int inFlight = Math.max(0, Math.min(running.get(), l.inFlight()));
    int queued;
    synchronized (lineLock) {
      // read together: a caller moves from the queue to the line, never back, and a place freed in
      // the line is taken by a newcomer in the queue only after the line changed
      queued = waitingInLine + BoundedQueueLimiter.queued(local.state);
    }
    Snapshots.Gauges gauges =
        new Snapshots.Gauges(inFlight, queued, l.shutdown(), admitted.get(), stats.released.sum());
    // the refusals for a predicted wait or a standing queue are decided in the local stage
    return Snapshots.concurrency(
        name,
        l.spec(),
        l.limitState(),
        gauges,
        stats,
        l.rejectedPredictedWait(),
        l.rejectedStandingQueue());
  }

  @Override
  public void shutdown() {
    stopped = true;
    Scheduler.Cancellable p = poll;
    if (p != null) {
      p.cancel();
    }
    watch.close();
    local.shutdown(); // rejects this node's queue; those callers end through onLocal
    List<GlobalAcquire> waiting;
    synchronized (lineLock) {
      waiting = new ArrayList<>(line);
    }
    waiting.forEach(acquire -> abandon(acquire, Outcome.SHUTDOWN));
  }

  @Override
  public boolean awaitDrained(Duration timeout) throws InterruptedException {
    return local.awaitDrained(timeout);
  }

  @Override
  public boolean isShutdown() {
    return local.isShutdown();
  }

  private long retryAfterNanos(int queuedAhead) {
    return AdmissionPolicy.retryAfterNanos(stats, queuedAhead, local.limit(), queueTimeoutNanos);
  }

  @Override
  public String toString() {
    return "ConcurrencyLimiter[" + name + ", global, limit=" + local.limit() + ", running here="
        + running.get() + ", cluster leases=" + clusterLeases
        + (isShutdown() ? ", shut down]" : "]");
  }
}
