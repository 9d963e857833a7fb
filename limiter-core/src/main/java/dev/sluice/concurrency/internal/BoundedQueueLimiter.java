package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.Priority;
import dev.sluice.concurrency.QueueSnapshot;
import dev.sluice.concurrency.Reconfiguration;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.concurrency.WaitQueue;
import dev.sluice.concurrency.limit.LimitSource;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntUnaryOperator;

/**
 * The concurrency limiter: permits from a {@link LimitSource}, waiters in a {@link WaitQueue}.
 *
 * <h2>How it stays correct and cheap</h2>
 *
 * In-flight count, queue length and the shut-down flag live in ONE atomic word ({@link #state}).
 *
 * <ul>
 *   <li>Fast path (nobody waiting): acquire and release are one CAS each on that word, no lock.
 *       Because the queue length is in the same word, a CAS that expects "nobody queued" fails the
 *       instant a waiter joins, so a newcomer can never barge past a waiter, and a releaser can never
 *       drop a permit on the floor while a waiter is joining (no lost wake-up).
 *   <li>Slow path (queue involved): a small lock guards the queue together with changes to the
 *       queued count. A lock rather than a lock-free queue because joining, leaving from the middle
 *       (cancel, timeout) and granting must agree with the count atomically; the critical sections
 *       are a few field writes, and the lock is never held while calling user code, the executor or
 *       the scheduler.
 *   <li>Every lock section that can leave "permits free while someone waits" ends with {@link
 *       #drainLocked()}, which grants head waiters until that is no longer true.
 *   <li>Each waiter's fate is decided by one CAS (see {@link Waiter}); only the winner acts.
 * </ul>
 */
final class BoundedQueueLimiter extends PaddedState implements ConcurrencyLimiter {

  private static final long IN_FLIGHT_MASK = 0xFFFF_FFFFL;
  private static final long ONE_QUEUED = 1L << 32;
  private static final long QUEUED_MASK = 0x7FFF_FFFFL << 32;
  private static final long SHUT_DOWN = Long.MIN_VALUE; // the sign bit: state < 0 means shut down

  private static final long MAX_FALLBACK_SERVICE_NANOS = TimeUnit.SECONDS.toNanos(1);

  /** Once this many permits were timed, only about one in {@link #SAMPLE_MASK} + 1 is. */
  static final int TIME_EVERY_PERMIT_UNTIL = 64;

  /** One permit in 16 is timed after the first {@link #TIME_EVERY_PERMIT_UNTIL}. */
  static final int SAMPLE_MASK = 15;

  private static final VarHandle STATE;

  /** Marks "a slot was freed, but nobody is left to answer" in {@link #displaceLocked}. */
  private static final Waiter NOBODY = new Waiter(null, Caller.DEFAULT, 0);

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(PaddedState.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String name;
  private final NanoClock clock;
  private final Scheduler scheduler;
  private final Executor executor;
  /** Null when the user configured none: then no listener call is made at all. */
  private final GuardedListener listener;
  /**
   * Volatile because {@link #reconfigure} may swap it; on x86 a volatile read is a plain load,
   * so the fast path still costs one read of this field and one volatile read of the limit.
   */
  private volatile LimitSource limit;

  private final SourceControl control = new SourceControl();

  /** Serialises source swaps ({@link #reconfigure}); never taken on the request path. */
  private final Object sourceSwap = new Object();

  private final WaitPrediction prediction;

  /** Callers who cannot be served in time are told at once; reconfigurable, read per slow path. */
  private volatile boolean rejectEarly;

  /** Reconfigurable; read on the slow path only. */
  private volatile long queueTimeoutNanos;

  /** Standing-queue control's target in nanoseconds, 0 when off; reconfigurable. */
  private volatile long delayTargetNanos;

  /** Since when the queue has held a waiter without draining; written under the lock. */
  private volatile long nonEmptySince;

  /** The configuration in force; replaced whole by {@link #reconfigure}. */
  private volatile LimiterSpec spec;

  /** Serialises {@link #reconfigure} and the setters that change the spec; never on the request path. */
  private final Object reconfiguring = new Object();

  private final LimiterStats stats;

  /** A listener wants every permit's service time: then every permit is timed. */
  private final boolean timeEveryPermit;

  /** True until {@link #TIME_EVERY_PERMIT_UNTIL} permits were timed; read-mostly. */
  private volatile boolean warmingUp = true;

  // state: [shut down:1][queued:31][in flight:32], in PaddedState, alone on its cache lines

  private volatile int maxQueue;

  /**
   * The waiters {@link #maxQueue} bounds beside this queue, from the units in flight: a {@link
   * GlobalLimiter}'s callers that hold a permit of this stage while they wait for a lease. None on a
   * local limiter. Read under the lock when a caller would join the queue.
   */
  private volatile IntUnaryOperator waitingOutside = inFlight -> 0;

  /** Guards {@link #queue}, the sequence counters, and every change of the queued count. */
  private final ReentrantLock lock = new ReentrantLock();

  private final Condition drainedCondition = lock.newCondition();
  private volatile int drainWaiters;
  /** Replaced only by {@link #reconfigure}, under the lock like every other use. */
  private WaitQueue queue;

  /**
   * Under the lock: the waiter polled to be granted next whose cost did not fit in what is free.
   * Out of the queue but counted as queued; granted before anyone else.
   */
  private Waiter held;

  /**
   * Under the lock: the units the queued callers (held included) will take, so that a prediction
   * counts work, not heads (one job of cost 4 ahead is four jobs of cost 1).
   */
  private long queuedUnits;

  private long queueSequence;
  private long grantSequence;

  BoundedQueueLimiter(LimiterBuilder config, LimiterSpec spec, LimitSource limit, WaitQueue queue) {
    this.name = config.name;
    this.clock = config.clock;
    this.scheduler = config.scheduler;
    this.executor = config.executor;
    this.listener =
        config.listener == null ? null : new GuardedListener(config.name, config.listener);
    this.timeEveryPermit = config.listener != null;
    this.spec = spec;
    this.queueTimeoutNanos = saturatedNanos(spec.queueTimeout());
    this.maxQueue = spec.maxQueue();
    this.limit = limit;
    this.queue = queue;
    this.stats = new LimiterStats(clock.nanoTime());
    this.prediction = new WaitPrediction(stats);
    if (spec.expectedServiceTime().isPresent()) {
      seed(spec.expectedServiceTime().get());
    }
    this.rejectEarly = spec.rejectEarly();
    this.delayTargetNanos =
        spec.queueDelayTarget().map(BoundedQueueLimiter::saturatedNanos).orElse(0L);
    limit.start(control);
  }

  /** What the limit source may see and do; see {@link LimitSource.Control}. */
  private final class SourceControl implements LimitSource.Control {
    @Override
    public String name() {
      return name;
    }

    @Override
    public NanoClock clock() {
      return clock;
    }

    @Override
    public Scheduler scheduler() {
      return scheduler;
    }

    @Override
    public int inFlight() {
      return BoundedQueueLimiter.inFlight(state);
    }

    @Override
    public int queued() {
      return BoundedQueueLimiter.queued(state);
    }

    @Override
    public void limitChanged() {
      grantWhileFree();
    }
  }

  static int inFlight(long s) {
    return (int) (s & IN_FLIGHT_MASK);
  }

  static int queued(long s) {
    return (int) ((s & QUEUED_MASK) >>> 32);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public CompletableFuture<Permit> acquire() {
    if (tryFastAdmit()) {
      return CompletableFuture.completedFuture(admittedAtOnce());
    }
    return acquireSlow(Caller.DEFAULT);
  }

  @Override
  public CompletableFuture<Permit> acquire(Caller caller) {
    int units = caller.cost();
    if (units == 1) {
      if (tryFastAdmit()) {
        return CompletableFuture.completedFuture(admittedAtOnce());
      }
    } else {
      int took = tryFastAdmit(units);
      if (took > 0) {
        return CompletableFuture.completedFuture(admittedAtOnce(took));
      }
    }
    return acquireSlow(caller);
  }

  @Override
  public Permit acquireIfFree() {
    return tryFastAdmit() ? admittedAtOnce() : null;
  }

  @Override
  public Optional<Permit> tryAcquire() {
    if (tryFastAdmit()) {
      return Optional.of(admittedAtOnce());
    }
    Outcome outcome = (long) STATE.getVolatile(this) < 0 ? Outcome.SHUTDOWN : Outcome.QUEUE_FULL;
    stats.rejected(outcome);
    if (listener != null) {
      listener.rejected(outcome, RejectionReason.of(outcome), 0);
    }
    return Optional.empty();
  }

  @Override
  public Permit acquireBlocking() throws InterruptedException {
    return Blocking.await(name, acquire());
  }

  /** One CAS when nobody waits; false sends the caller to the slow path. */
  private boolean tryFastAdmit() {
    for (; ; ) {
      long s = state;
      if (s < 0 || (s & QUEUED_MASK) != 0 || inFlight(s) >= limit.limit()) {
        return false;
      }
      if (STATE.compareAndSet(this, s, s + 1)) {
        return true;
      }
    }
  }

  /**
   * The fast path of a caller costing {@code units} (more than 1): the units it takes now, or 0
   * when it must go the slow way. A cost above the limit takes the whole limit, so it runs alone.
   */
  private int tryFastAdmit(int units) {
    for (; ; ) {
      long s = state;
      int take = Math.min(units, limit.limit());
      if (s < 0 || (s & QUEUED_MASK) != 0 || inFlight(s) + take > limit.limit()) {
        return 0;
      }
      if (STATE.compareAndSet(this, s, s + take)) {
        return take;
      }
    }
  }

  private GrantedPermit admittedAtOnce() {
    return admittedAtOnce(1);
  }

  private GrantedPermit admittedAtOnce(int units) {
    if (listener != null) {
      listener.admitted(0);
    }
    if (!timeThisPermit()) {
      return new GrantedPermit(this, units);
    }
    long now = clock.nanoTime();
    stats.started(now, units); // a running permit's elapsed time bounds its service time
    return new TimedPermit(this, units, now);
  }

  /** Whether a caller of {@code units} fits beside those in flight in word {@code s}. */
  private boolean fits(long s, int units) {
    int max = limit.limit();
    return inFlight(s) + Math.min(units, max) <= max;
  }

  /**
   * Whether to measure this permit's service time. Timing costs two clock reads per permit, and
   * {@code System.nanoTime()} costs about 30 ns on a VM (more than a whole untimed acquire and
   * release), so: every permit while a listener is configured (its {@code onReleased} promises a
   * service time, and a metrics timer wants every one) and for the first {@link
   * #TIME_EVERY_PERMIT_UNTIL} permits (a new or lightly used limiter reports exact figures);
   * after that a random one in {@code SAMPLE_MASK + 1}. Counts stay exact whatever is sampled;
   * what sampling costs is precision: the snapshot's service total is the sampled mean x the exact
   * count, its maximum the largest sampled, and the Retry-After estimate uses the sampled mean
   * (an average of hundreds of samples under load, where Retry-After matters). An adaptive {@link
   * LimitSource} would learn from the sampled permits. Queued permits are always timed: their
   * wait already read the clock.
   */
  private boolean timeThisPermit() {
    return timeEveryPermit
        || warmingUp
        || (ThreadLocalRandom.current().nextInt() & SAMPLE_MASK) == 0;
  }

  private CompletableFuture<Permit> acquireSlow(Caller caller) {
    Waiter waiter = new Waiter(this, caller, clock.nanoTime());
    int units = caller.cost();
    int taken = 1;
    long timeoutNanos = timeoutNanos(caller);
    // outside the lock: it sums striped counters
    boolean early = rejectEarly; // read once: a reconfiguration may turn it on or off meanwhile
    long meanServiceNanos = early ? prediction.serviceBoundNanos(waiter.enqueuedAtNanos) : -1;
    long firstTurnNanos = meanServiceNanos < 0
        ? -1
        : prediction.firstTurnNanos(waiter.enqueuedAtNanos, meanServiceNanos);
    double margin = early ? prediction.margin() : 1;
    long predictedWait = -1;
    Outcome rejection = null;
    RejectionReason reason = null;
    int queuedAhead = 0;
    boolean admitted = false;
    Waiter granted = null;
    Waiter displaced = null;
    lock.lock();
    try {
      int bound = maxQueue; // read once: a displacement must make room under the same bound
      for (; ; ) {
        long s = state;
        int queuedNow = queued(s);
        if (s < 0) {
          rejection = Outcome.SHUTDOWN;
          reason = RejectionReason.SHUTDOWN;
          queuedAhead = queuedNow;
          break;
        }
        if (queuedNow == 0 && fits(s, units)) {
          // a permit came free since the fast path looked; releasers still CAS without the lock
          taken = Math.min(units, limit.limit());
          if (STATE.compareAndSet(this, s, s + taken)) {
            admitted = true;
            break;
          }
          continue;
        }
        reason = queue.refusal(waiter); // e.g. its key is at its cap
        int room = bound - waitingOutside.applyAsInt(inFlight(s));
        if (reason == null && queuedNow >= room) {
          if (displaced == null && queuedNow == room) {
            displaced = displaceLocked(waiter);
            if (displaced != null) {
              continue; // one slot freed; look at the word again
            }
          }
          reason = RejectionReason.QUEUE_FULL;
        }
        if (reason != null) {
          rejection = Outcome.QUEUE_FULL;
          queuedAhead = queue.ahead(waiter);
          break;
        }
        if (early) {
          waiter.aheadAtJoin = queue.ahead(waiter) + (held != null ? 1 : 0);
          waiter.leftBeforeJoin = queueSequence - queuedNow;
          long wait = meanServiceNanos < 0
              ? -1
              : WaitPrediction.waitNanos(
                  unitsOf(waiter.aheadAtJoin, queuedNow),
                  Math.min(units, limit.limit()),
                  exactLimit(),
                  meanServiceNanos,
                  firstTurnNanos);
          // with the margin: a re-check then refuses a waiter only once the plain prediction
          // no longer fits, not at the next wobble (see WaitPrediction)
          if (wait > timeoutNanos / margin) {
            rejection = Outcome.QUEUE_FULL;
            reason = RejectionReason.PREDICTED_WAIT;
            predictedWait = wait;
            break;
          }
        }
        // fails if a lock-free release changed the word since we read it: then look again
        if (STATE.compareAndSet(this, s, s + ONE_QUEUED)) {
          waiter.queueSequence = queueSequence++;
          waiter.queuedUnits = Math.min(units, limit.limit());
          queuedUnits += waiter.queuedUnits;
          if (queue.size() == 0) {
            nonEmptySince = waiter.enqueuedAtNanos; // the queue starts to form: not standing yet
          }
          queue.add(waiter);
          // the limit may have grown while we waited for the lock
          granted = drainLocked();
          break;
        }
      }
    } finally {
      lock.unlock();
    }
    if (displaced != null && displaced != NOBODY) {
      displaced.cancelTimeout();
      rejectWaiter(displaced, Outcome.QUEUE_FULL, RejectionReason.DISPLACED, queued(state));
    }
    if (admitted) {
      return CompletableFuture.completedFuture(admittedAtOnce(taken));
    }
    if (rejection != null) {
      stats.rejected(rejection);
      stats.rejectedFor(reason);
      if (listener != null) {
        listener.rejected(rejection, reason, 0);
      }
      return CompletableFuture.failedFuture(new ConcurrencyRejectedException(
          rejection,
          reason,
          name,
          predictedWait >= 0 ? predictedWait : retryAfterNanos(queuedAhead)));
    }
    stats.queuedTotal.increment();
    if (listener != null) {
      listener.queued();
    }
    long target = delayTargetNanos;
    if (waiter.isWaiting() && (timeoutNanos != Long.MAX_VALUE || target > 0)) {
      // scheduled outside the lock; a grant that wins meanwhile cancels it
      // (Waiter#timeoutScheduled)
      if (early || target > 0) {
        long deadline =
            timeoutNanos == Long.MAX_VALUE ? Long.MAX_VALUE : waiter.enqueuedAtNanos + timeoutNanos;
        waiter.timeoutScheduled(scheduler.schedule(
            () -> check(waiter, deadline),
            nextCheckNanos(waiter, timeoutNanos, early, target, clock.nanoTime())));
      } else {
        waiter.timeoutScheduled(
            scheduler.schedule(() -> abandon(waiter, Outcome.QUEUE_TIMEOUT), timeoutNanos));
      }
    }
    dispatchGrants(granted);
    return waiter;
  }

  /**
   * The queue is full: removes the waiter the discipline gives up for {@code newcomer} (the newest
   * of the lowest class below it), fixing the count. Caller holds the lock. Returns that waiter if
   * this call decided its fate (to be answered {@link RejectionReason#DISPLACED} after the lock is
   * released), {@link #NOBODY} if it was leaving anyway (a cancel or timeout won its fate and will
   * find it gone), null if there is no one to displace.
   */
  private Waiter displaceLocked(Waiter newcomer) {
    Waiter victim = (Waiter) queue.victimFor(newcomer);
    if (victim == null || !queue.remove(victim)) {
      return null;
    }
    STATE.getAndAdd(this, -ONE_QUEUED);
    return victim.decide(Outcome.QUEUE_FULL) ? victim : NOBODY;
  }

  /** The shorter of the caller's own timeout and the limiter's, in nanoseconds (saturated). */
  private long timeoutNanos(Caller caller) {
    Duration own = caller.timeout();
    if (own == null) {
      return queueTimeoutNanos;
    }
    long ownNanos;
    try {
      ownNanos = own.toNanos();
    } catch (ArithmeticException tooLong) {
      ownNanos = Long.MAX_VALUE;
    }
    return Math.min(ownNanos, queueTimeoutNanos);
  }

  /** Called once per permit by {@link GrantedPermit#release()}. */
  void release(GrantedPermit permit) {
    long serviceNanos = -1;
    if (permit.timed()) {
      serviceNanos = clock.nanoTime() - permit.admittedAtNanos();
      stats.ended(permit.admittedAtNanos(), permit.units);
      stats.timed(serviceNanos, permit.units, limit.exactLimit());
      if (warmingUp && stats.timedCount.sum() >= TIME_EVERY_PERMIT_UNTIL) {
        warmingUp = false;
      }
      if (listener != null) {
        listener.released(serviceNanos);
      }
    }
    for (; ; ) {
      long s = state;
      if ((s & QUEUED_MASK) != 0) {
        releaseToQueue(permit.units);
        break;
      }
      // nobody waits: give the permit back with one CAS; it fails if a waiter joined meanwhile
      if (STATE.compareAndSet(this, s, s - permit.units)) {
        // volatile write of state, then volatile read of drainWaiters: see awaitDrained
        if (inFlight(s - permit.units) == 0 && drainWaiters > 0) {
          signalDrained();
        }
        break;
      }
    }
    // counted after the state word gave the permit back, never before: admitted = released + in
    // flight may then lag for an instant, but never runs ahead (see snapshot)
    stats.released.increment();
    if (serviceNanos >= 0) {
      limit.onSample(serviceNanos, inFlight(state));
    }
  }

  private void releaseToQueue(int units) {
    Waiter granted;
    lock.lock();
    try {
      // give back, then drain: under the lock this is a straight hand-off to the head waiter,
      // and when the limit shrank, in-flight falls instead
      long s = (long) STATE.getAndAdd(this, (long) -units) - units;
      granted = drainLocked();
      if (inFlight(s) == 0) {
        drainedCondition.signalAll();
      }
    } finally {
      lock.unlock();
    }
    dispatchGrants(granted);
  }

  /**
   * Grants head waiters while permits are free. Caller holds the lock. Returns the granted waiters
   * as a chain, to be completed by {@link #dispatchGrants} after the lock is released.
   */
  private Waiter drainLocked() {
    Waiter first = null;
    Waiter last = null;
    long target = delayTargetNanos;
    // newest first only while the queue holds more than the rounds of work it keeps: those are
    // served oldest first, or a waiter kept near capacity could be passed over for seconds
    boolean newestFirst =
        target > 0 && standing(clock.nanoTime(), target) && queuedUnits > keptUnits();
    for (; ; ) {
      long s = state;
      if (queued(s) == 0 || inFlight(s) >= limit.limit()) {
        return first;
      }
      Waiter head =
          held != null ? held : (Waiter) (newestFirst ? queue.pollNewest() : queue.poll());
      held = null;
      int units = Math.min(head.caller().cost(), limit.limit());
      if (head.isWaiting() && inFlight(s) + units > limit.limit()) {
        // it costs more than is free: it waits here, ahead of everyone, until enough is released
        // (serving a cheaper one behind it instead would starve the costly for good)
        held = head;
        return first;
      }
      queuedUnits -= head.queuedUnits;
      // a head whose fate is already decided (cancel, timeout) is leaving on its own: skip it
      boolean grant = head.decide(Outcome.ADMITTED);
      STATE.getAndAdd(this, grant ? units - ONE_QUEUED : -ONE_QUEUED);
      if (grant) {
        head.units = units;
        head.grantSequence = grantSequence++;
        if (last == null) {
          first = head;
        } else {
          last.nextGranted = head;
        }
        last = head;
      }
    }
  }

  /** Completes granted waiters' futures on the executor, never inline on this thread. */
  private void dispatchGrants(Waiter granted) {
    while (granted != null) {
      Waiter waiter = granted;
      granted = waiter.nextGranted;
      waiter.nextGranted = null;
      waiter.cancelTimeout();
      long now = clock.nanoTime();
      long waited = now - waiter.enqueuedAtNanos;
      stats.leftQueue(waited);
      if (listener != null) {
        listener.admitted(waited);
      }
      stats.started(now, waiter.units);
      GrantedPermit permit = new QueuedPermit(
          this, waiter.units, now, waited, waiter.queueSequence, waiter.grantSequence);
      execute(() -> {
        // the caller cancelled between grant and completion: the permit goes to the next one
        if (!waiter.complete(permit)) {
          permit.release();
        }
      });
    }
  }

  /**
   * Ends a waiter's wait without a permit: timeout (scheduler), cancellation (its future) or
   * shutdown. Does nothing if its fate was already decided.
   */
  void abandon(Waiter waiter, Outcome outcome) {
    abandon(waiter, outcome, null, -1);
  }

  /** As above, with a finer reason and Retry-After for the rejection (null and -1: derived). */
  private void abandon(Waiter waiter, Outcome outcome, RejectionReason reason, long retryAfter) {
    if (!waiter.decide(outcome)) {
      return;
    }
    if (outcome != Outcome.QUEUE_TIMEOUT) {
      waiter.cancelTimeout();
    }
    int queuedNow;
    Waiter granted = null;
    lock.lock();
    try {
      // not found: a drain already polled it (and fixed the count) but lost the fate CAS to us
      if (waiter == held) {
        held = null; // polled, but it did not fit: still counted as queued
        STATE.getAndAdd(this, -ONE_QUEUED);
        queuedUnits -= waiter.queuedUnits;
        // it kept free units from the waiters behind it: they may fit now
        granted = drainLocked();
      } else if (queue.remove(waiter)) {
        STATE.getAndAdd(this, -ONE_QUEUED);
        queuedUnits -= waiter.queuedUnits;
      }
      queuedNow = queued(state);
    } finally {
      lock.unlock();
    }
    dispatchGrants(granted);
    if (reason == null && outcome != Outcome.CANCELLED) {
      reason = RejectionReason.of(outcome);
    }
    rejectWaiter(waiter, outcome, reason, queuedNow, retryAfter);
  }

  private void rejectWaiter(Waiter waiter, Outcome outcome, RejectionReason reason, int queuedNow) {
    rejectWaiter(waiter, outcome, reason, queuedNow, -1);
  }

  /** Counts and answers a rejected waiter; {@code retryAfter} -1: estimated from the queue. */
  private void rejectWaiter(
      Waiter waiter, Outcome outcome, RejectionReason reason, int queuedNow, long retryAfter) {
    long waited = clock.nanoTime() - waiter.enqueuedAtNanos;
    stats.leftQueue(waited);
    stats.rejected(outcome);
    stats.rejectedFor(reason);
    if (outcome == Outcome.QUEUE_FULL) {
      stats.rejectedLate.increment(); // it had queued: a late answer, counted apart
    }
    if (listener != null) {
      listener.rejected(outcome, reason, waited);
    }
    if (outcome != Outcome.CANCELLED) {
      ConcurrencyRejectedException rejected = new ConcurrencyRejectedException(
          outcome, reason, name, retryAfter >= 0 ? retryAfter : retryAfterNanos(queuedNow));
      execute(() -> waiter.completeExceptionally(rejected));
    }
  }

  private void execute(Runnable completion) {
    try {
      executor.execute(completion);
    } catch (RejectedExecutionException e) {
      // the executor is shut down or saturated: completing here is better than stranding the
      // waiter (and, for a grant, its permit) forever
      completion.run();
    }
  }

  /**
   * rejectEarly: a queued waiter's timeout task. Times it out at its deadline; before that, rejects
   * it with PREDICTED_WAIT once the work still ahead of it cannot be served in time, else looks
   * again later. Its fate is still decided by one CAS in abandon, so a grant racing this check
   * wins or loses whole.
   */
  private void check(Waiter waiter, long deadline) {
    if (!waiter.isWaiting()) {
      return;
    }
    long now = clock.nanoTime();
    long remaining = deadline == Long.MAX_VALUE ? Long.MAX_VALUE : deadline - now;
    if (remaining <= 0) {
      abandon(waiter, Outcome.QUEUE_TIMEOUT);
      return;
    }
    long target = delayTargetNanos;
    if (target > 0
        && now - waiter.enqueuedAtNanos >= target
        && standing(now, target)
        && othersHoldRounds(waiter)) {
      // the queue stands and this waiter has waited its share: a 429 now, not a 504 later
      abandon(
          waiter,
          Outcome.QUEUE_FULL,
          RejectionReason.STANDING_QUEUE,
          retryAfterNanos(queued(state)));
      return;
    }
    boolean early = rejectEarly;
    long mean = early ? prediction.serviceBoundNanos(now) : -1;
    if (mean >= 0 && remaining != Long.MAX_VALUE) {
      long left;
      double aheadUnits;
      lock.lock();
      try {
        int queuedNow = queued(state);
        left = queueSequence - queuedNow;
        // every departure since it joined counts as one fewer ahead, also those behind it: this
        // can only predict too short a wait, so it never rejects a waiter that could have made it
        int ahead = (int) Math.max(0, waiter.aheadAtJoin - (left - waiter.leftBeforeJoin));
        aheadUnits = unitsOf(ahead, queuedNow);
      } finally {
        lock.unlock();
      }
      long wait = WaitPrediction.waitNanos(
          aheadUnits, waiter.queuedUnits, exactLimit(), mean, prediction.firstTurnNanos(now, mean));
      if (wait > remaining) {
        abandon(waiter, Outcome.QUEUE_FULL, RejectionReason.PREDICTED_WAIT, wait);
        return;
      }
    }
    waiter.timeoutScheduled(scheduler.schedule(
        () -> check(waiter, deadline), nextCheckNanos(waiter, remaining, early, target, now)));
  }

  /**
   * When a queued waiter is looked at next: its deadline; sooner with reject-early (a re-check
   * every 50-500 ms) and with standing-queue control (when it will have waited the target, then
   * every interval while the queue may start to stand).
   */
  private long nextCheckNanos(Waiter waiter, long remaining, boolean early, long target, long now) {
    long next = remaining;
    if (early && remaining != Long.MAX_VALUE) {
      next = Math.min(next, WaitPrediction.recheckDelayNanos(remaining));
    }
    if (target > 0) {
      long waited = now - waiter.enqueuedAtNanos;
      // before the target: at the target; after it: when the queue would have stood an interval
      // (it is shed then, not an interval later)
      long standsIn = nonEmptySince + standingIntervalNanos(target) - now;
      // once standing (or kept as the last round of work), a tenth of the target: shed at most
      // that late, and a waiter kept for seconds is looked at tens of times a second, not a
      // thousand
      long floor = Math.max(MIN_STANDING_CHECK_NANOS, target / 10);
      next = Math.min(next, waited < target ? target - waited : Math.max(floor, standsIn));
    }
    return Math.max(0, next);
  }

  /**
   * Rounds of work (the limit's permits, in units) a standing queue keeps. Chosen in virtual time
   * (one to eight permits, Poisson arrivals, 200 ms jobs, a 100 ms target, 40 seeds): shedding
   * down to nothing kept the permits busy 85 % of the time at twice the capacity with one permit;
   * keeping one round did 94-100 % of FIFO's work there, two rounds 97-100 %, with admitted waits
   * of about two jobs at most. More rounds only add waiting.
   */
  static final int ROUNDS_KEPT = 2;

  /** A waiter past the target is looked at no more often than this while the queue may stand. */
  private static final long MIN_STANDING_CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(1);

  /**
   * Whether the other waiters would still fill every permit {@link #ROUNDS_KEPT} times over: a
   * standing queue is shed down to that much work, never below, as CoDel never drops the last
   * packet's worth of its queue. A waiter kept by this is served within a few service times (the
   * permits free up and the newest go first) or shed once newer callers arrive. Shedding it
   * instead can leave a permit idle that the next release could have used, which near capacity
   * costs goodput for nothing.
   */
  private boolean othersHoldRounds(Waiter waiter) {
    lock.lock();
    try {
      return queuedUnits - waiter.queuedUnits >= keptUnits();
    } finally {
      lock.unlock();
    }
  }

  /** The units of work a standing queue keeps: {@link #ROUNDS_KEPT} times the limit. */
  private long keptUnits() {
    return (long) ROUNDS_KEPT * limit.limit();
  }

  /** The queue has held waiters without draining for the standing interval. */
  private boolean standing(long now, long target) {
    return queued(state) > 0 && now - nonEmptySince >= standingIntervalNanos(target);
  }

  /** {@code max(100 ms, target)}: see {@code LimiterSpec.Builder#queueDelayTarget}. */
  static long standingIntervalNanos(long target) {
    return Math.max(STANDING_INTERVAL_FLOOR_NANOS, target);
  }

  private static final long STANDING_INTERVAL_FLOOR_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

  /**
   * The units {@code ahead} of {@code queuedNow} queued callers will take, at the queue's mean
   * cost (exact for FIFO, where everyone queued is ahead). Caller holds the lock.
   */
  private double unitsOf(int ahead, int queuedNow) {
    return queuedNow <= 0 ? ahead : (double) ahead * queuedUnits / queuedNow;
  }

  /** The limit as the controller means it: real-valued for an adaptive source. */
  private double exactLimit() {
    return limit.exactLimit();
  }

  private void swapSource(LimitSource source) {
    synchronized (sourceSwap) {
      LimitSource old = limit;
      if (old == source) {
        return;
      }
      // started before it is published: the fast path never reads a source that is not running
      source.start(control);
      limit = source;
      old.stop();
    }
  }

  @Override
  public LimiterSpec spec() {
    return spec;
  }

  @Override
  public Reconfiguration reconfigure(LimiterSpec next) {
    java.util.Objects.requireNonNull(next, "spec must not be null");
    return change(inForce -> next);
  }

  /**
   * The one way the spec changes ({@link #reconfigure}): {@code change} makes the
   * next spec from the one in force, under the same monitor that applies it, so two changes at
   * once never lose one; then waiters are granted what a higher limit or another queue lets in.
   */
  private Reconfiguration change(java.util.function.UnaryOperator<LimiterSpec> change) {
    List<String> applied = new ArrayList<>();
    List<String> restart = new ArrayList<>();
    LimiterSpec before;
    LimiterSpec next;
    synchronized (reconfiguring) {
      before = spec;
      next = change.apply(before);
      if (isShutdown()) {
        if (!next.equals(before)) {
          restart.add("limiter '" + name + "' is shut down; nothing changed");
        }
        return new Reconfiguration(before, applied, restart);
      }
      if (!next.limit().equals(before.limit())) {
        // the new strategy starts from the limit in force, so a switch does not jump; rebuilding
        // the limiter instead would, for a moment, let two limiters each admit up to their limit
        int inForce = limit.limit();
        swapSource(next.limit().newSource(next.maxConcurrency(), inForce));
        applied.add("limit " + before.limit() + " -> " + next.limit() + ", from limit " + inForce
            + (next.maxConcurrency() != before.maxConcurrency()
                ? ", maxConcurrency " + before.maxConcurrency() + " -> " + next.maxConcurrency()
                : ""));
      } else if (next.maxConcurrency() != before.maxConcurrency()) {
        limit.setLimit(next.maxConcurrency());
        applied.add("maxConcurrency " + before.maxConcurrency() + " -> " + next.maxConcurrency());
      }
      if (next.maxQueue() != before.maxQueue()) {
        maxQueue = next.maxQueue(); // newcomers; callers queued keep their place
        applied.add("maxQueue " + before.maxQueue() + " -> " + next.maxQueue());
      }
      if (!next.queueTimeout().equals(before.queueTimeout())) {
        queueTimeoutNanos = saturatedNanos(next.queueTimeout()); // newcomers
        applied.add("queueTimeout " + before.queueTimeout() + " -> " + next.queueTimeout());
      }
      if (next.rejectEarly() != before.rejectEarly()) {
        rejectEarly = next.rejectEarly(); // newcomers
        applied.add("rejectEarly " + before.rejectEarly() + " -> " + next.rejectEarly());
      }
      if (!next.queue().equals(before.queue())) {
        int moved = moveTo(next.queue().newQueue());
        applied.add(
            "queue " + before.queue() + " -> " + next.queue() + ", " + moved + " waiting moved");
      }
      if (!next.queueDelayTarget().equals(before.queueDelayTarget())) {
        delayTargetNanos = next.queueDelayTarget()
            .map(BoundedQueueLimiter::saturatedNanos)
            .orElse(0L); // newcomers are checked against it; waiters at their next check
        applied.add("queueDelayTarget "
            + before.queueDelayTarget().map(Duration::toString).orElse("off") + " -> "
            + next.queueDelayTarget().map(Duration::toString).orElse("off"));
      }
      if (!next.expectedServiceTime().equals(before.expectedServiceTime())) {
        // it counts as a few jobs, one fewer per job timed: after those, the timed jobs speak
        String taken = seed(next.expectedServiceTime().orElse(Duration.ZERO))
                || next.expectedServiceTime().isEmpty()
            ? ""
            : " (jobs were timed already: the prediction goes on from them)";
        applied.add("expectedServiceTime "
            + before.expectedServiceTime().map(Duration::toString).orElse("none") + " -> "
            + next.expectedServiceTime().map(Duration::toString).orElse("none") + taken);
      }
      if (!next.leaseTime().equals(before.leaseTime())) {
        applied.add("leaseTime " + before.leaseTime() + " -> " + next.leaseTime());
      }
      spec = next;
    }
    grantWhileFree(); // a higher limit, or a queue whose head may now be served
    return new Reconfiguration(next, applied, restart);
  }

  /** Seeds the wait prediction with an expected service time, zero: none (WaitPrediction#seed). */
  private boolean seed(Duration expected) {
    return prediction.seed(saturatedNanos(expected));
  }

  static long saturatedNanos(Duration d) {
    try {
      return d.toNanos();
    } catch (ArithmeticException tooLong) {
      return Long.MAX_VALUE; // a timeout of centuries means "never"
    }
  }

  /** Grants waiters while permits are free: after the limit grew. */
  private void grantWhileFree() {
    Waiter granted;
    lock.lock();
    try {
      granted = drainLocked();
    } finally {
      lock.unlock();
    }
    dispatchGrants(granted);
  }

  /** Set once by the {@link GlobalLimiter} this is the local stage of; see the field. */
  void countWaitingOutside(IntUnaryOperator waiting) {
    waitingOutside = waiting;
  }

  /** Moves every waiter to {@code next}, in the order the old queue would grant them. */
  private int moveTo(WaitQueue next) {
    int moved = 0;
    lock.lock();
    try {
      if (next == queue) {
        return 0;
      }
      if (next.size() != 0) {
        throw new IllegalArgumentException("queue must be empty but holds " + next.size());
      }
      // the queued count in the state word does not change: the same waiters, another order
      for (WaitQueue.Entry e = queue.poll(); e != null; e = queue.poll()) {
        next.add(e);
        moved++;
      }
      queue = next;
    } finally {
      lock.unlock();
    }
    return moved;
  }

  @Override
  public void shutdown() {
    Waiter rejected = null;
    lock.lock();
    try {
      long s;
      do {
        s = state;
      } while (s >= 0 && !STATE.compareAndSet(this, s, s | SHUT_DOWN));
      queuedUnits = 0; // every waiter leaves below
      if (held != null) {
        Waiter waiter = held;
        held = null;
        STATE.getAndAdd(this, -ONE_QUEUED);
        if (waiter.decide(Outcome.SHUTDOWN)) {
          waiter.nextGranted = rejected;
          rejected = waiter;
        }
      }
      for (Waiter waiter = (Waiter) queue.poll(); waiter != null; waiter = (Waiter) queue.poll()) {
        STATE.getAndAdd(this, -ONE_QUEUED);
        if (waiter.decide(Outcome.SHUTDOWN)) {
          waiter.nextGranted = rejected;
          rejected = waiter;
        }
      }
    } finally {
      lock.unlock();
    }
    limit.stop();
    while (rejected != null) {
      Waiter waiter = rejected;
      rejected = waiter.nextGranted;
      waiter.nextGranted = null;
      waiter.cancelTimeout();
      rejectWaiter(waiter, Outcome.SHUTDOWN, RejectionReason.SHUTDOWN, 0);
    }
  }

  @Override
  @SuppressWarnings("NonAtomicVolatileUpdate") // drainWaiters changes only under the lock
  public boolean awaitDrained(Duration timeout) throws InterruptedException {
    long remaining = timeout.toNanos();
    lock.lock();
    try {
      // volatile write here, volatile read of state below; release does the mirror image, so
      // either it sees a waiter and signals, or we see in-flight 0
      drainWaiters++;
      try {
        while (inFlight(state) != 0) {
          if (remaining <= 0) {
            return false;
          }
          remaining = drainedCondition.awaitNanos(remaining);
        }
        return true;
      } finally {
        drainWaiters--;
      }
    } finally {
      lock.unlock();
    }
  }

  private void signalDrained() {
    lock.lock();
    try {
      drainedCondition.signalAll();
    } finally {
      lock.unlock();
    }
  }

  @Override
  public boolean isShutdown() {
    return state < 0;
  }

  private long retryAfterNanos(int queuedAhead) {
    long fallback = Math.min(queueTimeoutNanos, MAX_FALLBACK_SERVICE_NANOS);
    return stats.retryAfterNanos(queuedAhead, limit.limit(), fallback);
  }

  @Override
  public int limit() {
    return limit.limit();
  }

  @Override
  public ConcurrencySnapshot snapshot() {
    long s = state;
    // released is read after the state word and counted after a release's CAS, so released + in
    // flight never exceeds the true admissions; it may lag by releases in progress, so it is held
    // monotonic against what earlier snapshots reported
    long released = stats.released.sum();
    stats.admittedReported.accumulate(released + inFlight(s));
    long timedTotal = stats.timedTotal.sum();
    long timed = stats.timedCount.sum();
    return ConcurrencySnapshot.builder(name, spec, limit.state())
        .gauges(inFlight(s), queued(s), s < 0)
        .outcomes(
            stats.admittedReported.get(),
            stats.queuedTotal.sum(),
            stats.rejectedQueueFull.sum(),
            stats.rejectedQueueTimeout.sum(),
            stats.cancelled.sum(),
            stats.rejectedShutdown.sum())
        .queueWait(stats.queueWaitCount.sum(), stats.queueWaitTotal.sum(), stats.queueWaitMax.get())
        .service(
            released,
            LimiterStats.serviceTotal(released, timed, timedTotal),
            stats.serviceMax.get())
        .late(stats.rejectedLate.sum())
        .reasons(stats.predictedWait.sum(), stats.standingQueue.sum())
        .build();
  }

  @Override
  public QueueSnapshot queueSnapshot() {
    int critical;
    int normal;
    int sheddable;
    int keys;
    lock.lock();
    try {
      critical = queue.size(Priority.CRITICAL);
      normal = queue.size(Priority.NORMAL);
      sheddable = queue.size(Priority.SHEDDABLE);
      keys = queue.keys();
    } finally {
      lock.unlock();
    }
    return new QueueSnapshot(
        critical, normal, sheddable, keys, stats.rejectedKeyCap.sum(), stats.displaced.sum());
  }

  @Override
  public String toString() {
    long s = state;
    return "ConcurrencyLimiter[" + name + ", limit=" + limit.limit() + ", inFlight=" + inFlight(s)
        + ", queued=" + queued(s) + (s < 0 ? ", shut down]" : "]");
  }
}
