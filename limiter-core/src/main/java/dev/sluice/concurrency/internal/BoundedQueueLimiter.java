package dev.sluice.concurrency.internal;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.Outcome;
import dev.sluice.concurrency.Permit;
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
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
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
 *
 * <p>The engine moves permits and waiters; what to do with a caller that cannot run at once (queue,
 * refuse, displace, shed, re-check) is its {@link AdmissionPolicy}'s, and changes of the spec are
 * its {@link Reconfigurer}'s. Neither is on the fast path.
 */
final class BoundedQueueLimiter extends PaddedState implements ConcurrencyLimiter {

  private static final long IN_FLIGHT_MASK = 0xFFFF_FFFFL;
  static final long ONE_QUEUED = 1L << 32;
  private static final long QUEUED_MASK = 0x7FFF_FFFFL << 32;
  private static final long SHUT_DOWN = Long.MIN_VALUE; // the sign bit: state < 0 means shut down

  /** Once this many permits were timed, only about one in {@link #SAMPLE_MASK} + 1 is. */
  static final int TIME_EVERY_PERMIT_UNTIL = 64;

  /** One permit in 16 is timed after the first {@link #TIME_EVERY_PERMIT_UNTIL}. */
  static final int SAMPLE_MASK = 15;

  private static final VarHandle STATE;

  static {
    try {
      STATE = MethodHandles.lookup().findVarHandle(PaddedState.class, "state", long.class);
    } catch (ReflectiveOperationException e) {
      throw new ExceptionInInitializerError(e);
    }
  }

  private final String name;
  final NanoClock clock;
  final Scheduler scheduler;
  /** Null when the user configured none: then no listener call is made at all. */
  private final GuardedListener listener;
  /**
   * Volatile because a reconfiguration may swap it; on x86 a volatile read is a plain load, so the
   * fast path still costs one read of this field and one volatile read of the limit.
   */
  private volatile LimitSource limit;

  private final SourceControl control = new SourceControl(this);

  final LimiterStats stats;

  /** Decides who waits and who is refused; read on the slow path only. */
  private final AdmissionPolicy admission;

  /** Answers the slow path's callers; read on the slow path only. */
  private final Answers answers;

  /** The spec in force and the one way it changes; never on the request path. */
  private final Reconfigurer reconfigurer;

  /** A listener wants every permit's service time: then every permit is timed. */
  private final boolean timeEveryPermit;

  /** True until {@link #TIME_EVERY_PERMIT_UNTIL} permits were timed; read-mostly. */
  private volatile boolean warmingUp = true;

  // state: [shut down:1][queued:31][in flight:32], in PaddedState, alone on its cache lines

  /** Guards the {@link #line} of waiters and every change of the queued count. */
  final ReentrantLock lock = new ReentrantLock();

  private final Condition drainedCondition = lock.newCondition();
  private volatile int drainWaiters;

  /** The waiters, under the lock. */
  private final WaitLine line;

  BoundedQueueLimiter(LimiterBuilder config, LimiterSpec spec, LimitSource limit, WaitQueue queue) {
    this.name = config.name;
    this.clock = config.clock;
    this.scheduler = config.scheduler;
    this.listener =
        config.listener == null ? null : new GuardedListener(config.name, config.listener);
    this.timeEveryPermit = config.listener != null;
    this.limit = limit;
    this.line = new WaitLine(this, queue);
    this.stats = new LimiterStats(clock.nanoTime());
    this.admission = new AdmissionPolicy(this, line, spec, new WaitPrediction(stats));
    this.answers = new Answers(this, config.executor, stats, admission, listener);
    this.reconfigurer = new Reconfigurer(this, admission, spec);
    limit.start(control);
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
    Arrival arrival = admission.arrive(new Waiter(this, caller, clock.nanoTime()));
    lock.lock();
    try {
      joinLocked(arrival);
    } finally {
      lock.unlock();
    }
    Waiter displaced = arrival.displaced;
    if (displaced != null && displaced != WaitLine.NOBODY) {
      displaced.cancelTimeout();
      answers.rejected(displaced, Outcome.QUEUE_FULL, RejectionReason.DISPLACED, queued(state), -1);
    }
    if (arrival.admitted) {
      return CompletableFuture.completedFuture(admittedAtOnce(arrival.taken));
    }
    if (arrival.rejection != null) {
      return answers.refused(arrival);
    }
    answers.queued();
    admission.watch(arrival);
    answers.granted(arrival.granted);
    return arrival.waiter;
  }

  /**
   * Admits the caller if a permit came free, else joins it to the queue or refuses it, as the
   * policy decides. Caller holds the lock; the answers are given after it is released.
   */
  private void joinLocked(Arrival arrival) {
    Waiter waiter = arrival.waiter;
    int bound =
        admission.maxQueue(); // read once: a displacement must make room under the same bound
    for (; ; ) {
      long s = state;
      if (s < 0) {
        arrival.refuse(Outcome.SHUTDOWN, RejectionReason.SHUTDOWN, queued(s));
        return;
      }
      if (queued(s) == 0 && fits(s, arrival.units)) {
        // a permit came free since the fast path looked; releasers still CAS without the lock
        int taken = Math.min(arrival.units, limit.limit());
        if (STATE.compareAndSet(this, s, s + taken)) {
          arrival.admit(taken);
          return;
        }
        continue;
      }
      AdmissionPolicy.Verdict verdict = admission.decideLocked(arrival, s, bound);
      if (verdict == AdmissionPolicy.Verdict.REFUSE) {
        return;
      }
      // LOOK_AGAIN: one slot freed; a CAS that fails: a lock-free release changed the word since
      // we read it. Either way look again
      if (verdict == AdmissionPolicy.Verdict.JOIN && STATE.compareAndSet(this, s, s + ONE_QUEUED)) {
        if (line.join(waiter, Math.min(arrival.units, limit.limit()))) {
          admission.standing.startsAt(waiter.enqueuedAtNanos); // the queue starts to form
        }
        // the limit may have grown while we waited for the lock
        arrival.granted = drainLocked();
        return;
      }
    }
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
    answers.granted(granted);
  }

  /**
   * Grants head waiters while permits are free. Caller holds the lock. Returns the granted waiters
   * as a chain, to be completed by {@link Answers#granted} after the lock is released.
   */
  private Waiter drainLocked() {
    return line.drain(admission.standing.newestFirstLocked());
  }

  /** Adds {@code delta} to the state word; under the lock, for the queued count ({@link WaitLine}). */
  void addToState(long delta) {
    STATE.getAndAdd(this, delta);
  }

  /**
   * Ends a waiter's wait without a permit: timeout (scheduler), cancellation (its future) or
   * shutdown. Does nothing if its fate was already decided.
   */
  void abandon(Waiter waiter, Outcome outcome) {
    abandon(waiter, outcome, null, -1);
  }

  /** As above, with a finer reason and Retry-After for the rejection (null and -1: derived). */
  void abandon(Waiter waiter, Outcome outcome, RejectionReason reason, long retryAfter) {
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
      if (line.leave(waiter)) {
        granted = drainLocked(); // it was held back, keeping units the waiters behind may take
      }
      queuedNow = queued(state);
    } finally {
      lock.unlock();
    }
    answers.granted(granted);
    if (reason == null && outcome != Outcome.CANCELLED) {
      reason = RejectionReason.of(outcome);
    }
    answers.rejected(waiter, outcome, reason, queuedNow, retryAfter);
  }

  /** The limit as the controller means it: real-valued for an adaptive source. */
  double exactLimit() {
    return limit.exactLimit();
  }

  LimitSource limitSource() {
    return limit;
  }

  @Override
  public LimiterSpec spec() {
    return reconfigurer.inForce();
  }

  @Override
  public Reconfiguration reconfigure(LimiterSpec next) {
    return reconfigurer.reconfigure(next);
  }

  /**
   * Starts {@code source} and puts it in force, stopping the old one. Called by the {@link
   * Reconfigurer}, one change at a time.
   */
  void swapSource(LimitSource source) {
    LimitSource old = limit;
    if (old == source) {
      return;
    }
    // started before it is published: the fast path never reads a source that is not running
    source.start(control);
    limit = source;
    old.stop();
  }

  /** Grants waiters while permits are free: after the limit grew. */
  void grantWhileFree() {
    Waiter granted;
    lock.lock();
    try {
      granted = drainLocked();
    } finally {
      lock.unlock();
    }
    answers.granted(granted);
  }

  /** Set once by the {@link GlobalLimiter} this is the local stage of; see AdmissionPolicy. */
  void countWaitingOutside(IntUnaryOperator waiting) {
    admission.countWaitingOutside(waiting);
  }

  /** Moves every waiter to {@code next}, in the order the old queue would grant them. */
  int moveTo(WaitQueue next) {
    lock.lock();
    try {
      return line.moveTo(next);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void shutdown() {
    Waiter rejected;
    lock.lock();
    try {
      STATE.getAndBitwiseOr(this, SHUT_DOWN); // the counts stay; a second shutdown changes nothing
      rejected = line.shutDown();
    } finally {
      lock.unlock();
    }
    limit.stop();
    answers.rejected(rejected, Outcome.SHUTDOWN, RejectionReason.SHUTDOWN);
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

  @Override
  public int limit() {
    return limit.limit();
  }

  @Override
  public ConcurrencySnapshot snapshot() {
    long s = state; // before the counters: see Snapshots#local
    return Snapshots.local(name, spec(), limit.state(), s, stats);
  }

  @Override
  public QueueSnapshot queueSnapshot() {
    lock.lock();
    try {
      return line.snapshot(stats);
    } finally {
      lock.unlock();
    }
  }

  @Override
  public String toString() {
    long s = state;
    return "ConcurrencyLimiter[" + name + ", limit=" + limit.limit() + ", inFlight=" + inFlight(s)
        + ", queued=" + queued(s) + (s < 0 ? ", shut down]" : "]");
  }
}
