package dev.sluice.javalin;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.QueueCallers;
import dev.sluice.http.Answers;
import dev.sluice.http.Deadline;
import dev.sluice.http.Rejection;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RuleOutcomes;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The before- and after-handler logic: rate rules first (a request a rule rejects never takes a
 * queue slot), then the path's concurrency limiter. A request that must wait is parked with
 * {@code ctx.future(...)}, so it holds no Jetty thread while queued; Javalin resumes the chain on
 * the thread that completes the future, which the limiter takes from the executor.
 */
final class Gate {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);
  private static final CompletableFuture<Void> ADMITTED = CompletableFuture.completedFuture(null);

  /** The request attribute holding the request's deadline, in the plugin clock's nanoseconds. */
  static final String DEADLINE = "dev.sluice.javalin.Deadline";

  private final Settings settings;
  private final Limiters limiters;
  private final RateRules rules; // null: no rate rules
  private final Answers answers;
  private final RateHeaders headers;
  private final boolean limiterHeaders; // sluice.headers.concurrency
  private final Executor executor;
  private final Scheduler scheduler; // holds shaped requests
  private final SluiceMeterBinder metrics;
  private final WarnOnce ruleFailures;
  private final DisconnectWatch disconnects;
  private final NanoClock clock; // request deadlines
  private final PeerAddresses peers = new PeerAddresses();
  // the request info of the rules' decisions made on the spot, one per platform thread (as the
  // outcome holder): read only while the rules decide, so a thread's requests can share it
  private final ThreadLocal<ContextRequestInfo> infos;
  private volatile boolean stopping;

  Gate(
      Settings settings,
      Limiters limiters,
      RateRules rules,
      Executor executor,
      Scheduler scheduler,
      SluiceMeterBinder metrics,
      WarnOnce ruleFailures,
      DisconnectWatch disconnects,
      NanoClock clock) {
    this.settings = settings;
    this.limiters = limiters;
    this.rules = rules;
    this.answers = new Answers(settings.statuses());
    this.headers = new RateHeaders(settings.draftHeaders(), settings.xHeaders());
    this.limiterHeaders = settings.concurrencyHeaders();
    this.executor = executor;
    this.scheduler = scheduler;
    this.metrics = metrics;
    this.ruleFailures = ruleFailures;
    this.disconnects = disconnects;
    this.clock = clock;
    this.infos = ThreadLocal.withInitial(() -> new ContextRequestInfo(null, null, settings, peers));
  }

  void stopAdmitting() {
    stopping = true;
  }

  boolean isStopping() {
    return stopping;
  }

  /** The before-handler. */
  void before(Context ctx) {
    String path = path(ctx);
    if (settings.bypassed(path)) {
      return;
    }
    if (stopping) {
      throw rejected(ctx, answers.shuttingDown());
    }
    LimiterEntry limiter = limiters.forPath(path);
    // a path no rule guards (most, in many services) builds no request info and writes no header
    if (rules != null && rules.guards(ctx.method().name(), path)) {
      RuleOutcomes outcomes = OutcomeHolder.current();
      if (!checkRulesNow(ctx, path, outcomes)) { // a rule counted in the shared store
        // the store's answer may come on another thread: this request's own info
        CompletableFuture<RateVerdict> pending =
            checkRules(new ContextRequestInfo(ctx, path, settings, peers));
        if (!pending.isDone()) {
          // the store answers on its own I/O thread: hop to the executor before going on, or the
          // endpoint would run on the store's event loop
          ctx.future(() -> pending.thenComposeAsync(
              v -> {
                long delay = apply(ctx, new RuleOutcomes().set(v));
                return delay > 0 ? shaped(ctx, limiter, delay) : admitSuspended(ctx, limiter);
              },
              executor));
          return;
        }
        outcomes.set(pending.getNow(RateVerdict.noRules()));
      }
      long delay = apply(ctx, outcomes);
      if (delay > 0) {
        ctx.future(() -> shaped(ctx, limiter, delay));
        return;
      }
    }
    if (limiter != null) {
      // no admission record yet: a permit granted at once is kept as the request's record itself
      CompletableFuture<Void> waiting = admit(ctx, null, limiter);
      if (waiting != null) {
        suspend(ctx, admission(ctx), waiting);
      }
    }
  }

  /**
   * A shaper rule's delay (nginx {@code limit_req} without {@code nodelay}): the request is held,
   * with no thread, for its turn at the rule's steady rate, then asks its limiter. A request that
   * would overflow the rule's bucket was already rejected by the rule.
   */
  private CompletableFuture<Void> shaped(Context ctx, LimiterEntry limiter, long delayNanos) {
    CompletableFuture<Void> due = new CompletableFuture<>();
    // the scheduler's thread only hands over: the rest of the chain (the endpoint) runs on the
    // executor, as a woken waiter's does
    scheduler.schedule(() -> execute(() -> due.complete(null)), delayNanos);
    return limiter == null ? due : due.thenCompose(v -> admitSuspended(ctx, limiter));
  }

  private void execute(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // the pool is stopping: better late on this thread than a request stuck forever
    }
  }

  /**
   * The before-matched guard: the endpoint never runs without its permit. Javalin's async timeout
   * (http.asyncTimeout) resumes the chain, endpoint included, while the request still waits in the
   * queue; this answers it as a queue timeout instead, and the waiter is then cancelled.
   */
  void guard(Context ctx) {
    // a bare Permit (granted at once) never parked
    if (ctx.attribute(Admission.ATTRIBUTE) instanceof Admission admission && admission.isParked()) {
      // a client that hung up is a cancel, never a 504: an alert on the 504 rate must not fire
      // on disconnects (the limiter counts it as cancelled too)
      throw rejected(
          ctx, admission.isClientGone() ? answers.clientGone() : answers.parkedTooLong());
    }
  }

  /** The after-handler: gives back every permit the request holds. */
  void after(Context ctx) {
    Object held = ctx.attribute(Admission.ATTRIBUTE);
    if (held instanceof Permit permit) {
      // the one permit of the path's limiter, granted at once at cost 1: no cost sample to teach
      permit.release();
    } else if (held instanceof Admission admission) {
      CostSample sample = ctx.attribute(CostSample.ATTRIBUTE);
      if (sample != null && sample.admittedNanos != 0) {
        sample.cost.served(sample.group, clock.nanoTime() - sample.admittedNanos);
      }
      admission.close();
    }
  }

  /** The endpoint wrapper of {@link SluicePlugin#limited}. */
  void limited(String limiterName, Handler handler, Context ctx) throws Exception {
    LimiterEntry limiter = limiters
        .byName(limiterName)
        .orElseThrow(
            () -> new IllegalStateException("no Sluice limiter named '" + limiterName + "'"));
    Admission admission =
        admission(ctx); // a bypassed path has none yet: the wrapper still limits it
    if (admission.holds(limiterName)) {
      handler.handle(ctx);
      return;
    }
    if (stopping) {
      throw rejected(ctx, answers.shuttingDown());
    }
    CompletableFuture<Void> waiting = admit(ctx, admission, limiter);
    if (waiting == null) {
      handler.handle(ctx);
    } else {
      suspend(ctx, admission, waiting.thenRun(() -> run(handler, ctx)));
    }
  }

  /**
   * The request's permits, created on first need. The attribute holds either this record or, for
   * a request whose path's limiter granted its permit at once in the before-handler (most
   * requests), that bare {@link Permit}: it then becomes the record's first permit.
   */
  private Admission admission(Context ctx) {
    Object held = ctx.attribute(Admission.ATTRIBUTE);
    if (held instanceof Admission admission) {
      return admission;
    }
    Admission admission = new Admission();
    if (held instanceof Permit permit) {
      admission.hold(limiters.forPath(path(ctx)).name(), permit);
    }
    ctx.attribute(Admission.ATTRIBUTE, admission);
    return admission;
  }

  /**
   * The one admission path (before-handler, after rules decided at once or by a store; wrapped
   * handler): asks {@code limiter} for a permit for this request. Returns null when the permit is
   * held already; a future that completes once it is held (the request is parked: the caller
   * waits on it with {@link #suspend}, or, already suspended, {@link #admitSuspended}); throws a
   * {@link Rejection} when refused at once. With {@code admission} null (the before-handler, the
   * request's first permit), a permit granted at once is stored as the request's record itself,
   * and an {@link Admission} is made only when the request must wait.
   */
  private CompletableFuture<Void> admit(Context ctx, Admission held, LimiterEntry limiter) {
    long budget = budgetNanos(ctx, limiter);
    RequestCost cost = limiter.cost();
    if (cost.one()) {
      // the common case, a free permit and nobody waiting: no future, no lambda (a global
      // limiter has no such shortcut: it always asks the store, and answers null here)
      Permit now = limiter.limiter().acquireIfFree();
      if (now != null) {
        if (held == null) {
          ctx.attribute(Admission.ATTRIBUTE, now);
        } else {
          held.hold(limiter.name(), now);
        }
        limiterPolicy(ctx, limiter);
        return null;
      }
    }
    Admission admission = held == null ? admission(ctx) : held;
    QueueCallers callers = limiter.callers();
    // who asks, for the queue discipline (key, class) and the cost: built at most once, and not at
    // all for a plain FIFO limiter at cost 1
    ContextRequestInfo info =
        callers.needed() || !cost.one() ? new ContextRequestInfo(ctx, path(ctx), settings) : null;
    Caller caller = callers.needed() ? callers.of(info) : Caller.DEFAULT;
    if (!cost.one()) {
      caller = withCost(ctx, info, cost, caller);
    }
    if (budget > 0) {
      caller = caller.withTimeout(Duration.ofNanos(budget)); // the shorter of it and queue-timeout
    }
    CompletableFuture<Permit> acquired = limiter.limiter().acquire(caller);
    if (acquired.isDone()) {
      Throwable failure = failure(acquired);
      if (failure != null) {
        throw rejected(ctx, refusal(failure, limiter, caller));
      }
      admission.hold(limiter.name(), acquired.getNow(null));
      limiterPolicy(ctx, limiter);
      costClockStarts(ctx);
      return null;
    }
    admission.park(acquired);
    return acquired.handle((permit, failed) -> {
      if (failed != null) {
        if (Answers.unwrap(failed) instanceof CancellationException) {
          // the request ended while parked (async timeout, reset, stop): resuming lets the guard
          // answer it, if anyone still listens; writing here would race Javalin's own timeout path
          return null;
        }
        throw rejected(ctx, refusal(failed, limiter));
      }
      admission.hold(limiter.name(), permit);
      limiterPolicy(ctx, limiter);
      costClockStarts(ctx);
      return null;
    });
  }

  /** A request under a learned cost holds its permit: its service time starts now. */
  private void costClockStarts(Context ctx) {
    CostSample sample = ctx.attribute(CostSample.ATTRIBUTE);
    if (sample != null) {
      sample.admittedNanos = clock.nanoTime();
    }
  }

  /**
   * {@code caller} with the request's cost; for a learned cost, remembers the request's group and
   * admission time so that {@link #after} can teach the cost its service time.
   */
  private Caller withCost(Context ctx, ContextRequestInfo info, RequestCost cost, Caller caller) {
    int units;
    try {
      units = cost.of(info, ctx::queryParam);
    } catch (RequestCost.BadCost e) {
      throw rejected(ctx, answers.badRequest(e.getMessage()));
    }
    if (cost.learns()) {
      ctx.attribute(CostSample.ATTRIBUTE, new CostSample(cost, cost.group(info)));
    }
    return units == 1 ? caller : caller.withCost(units);
  }

  /**
   * The request's own budget from the limiter's {@code deadline-header}, in nanoseconds: 0 when
   * the limiter reads none or the request sends none (or a malformed one, counted); throws the
   * 504 answer when it is already spent. Remembers the deadline for {@link
   * SluicePlugin#remainingBudget}.
   */
  private long budgetNanos(Context ctx, LimiterEntry limiter) {
    String header = limiter.deadlineHeader();
    if (header == null) {
      return 0;
    }
    String raw = ctx.header(header);
    if (raw == null) {
      return 0;
    }
    long budget = Deadline.parseNanos(raw);
    if (budget == Deadline.MALFORMED) {
      metrics.onMalformedDeadline(limiter.name());
      return 0;
    }
    if (budget == 0) {
      throw rejected(ctx, answers.deadlineExceeded(limiter.name()));
    }
    long now = clock.nanoTime();
    ctx.attribute(DEADLINE, now + Math.min(budget, Long.MAX_VALUE / 4));
    return budget;
  }

  /** {@link #admit} from a stage that runs after the request was suspended. */
  private CompletableFuture<Void> admitSuspended(Context ctx, LimiterEntry limiter) {
    if (limiter == null) {
      return ADMITTED;
    }
    Admission admission = admission(ctx);
    CompletableFuture<Void> waiting = admit(ctx, admission, limiter);
    if (waiting == null) {
      return ADMITTED;
    }
    cancelWhenRequestEnds(ctx, admission.parkedOn());
    return waiting;
  }

  /**
   * Suspends the request (no thread held) until {@code admitted} completes; the servlet async
   * context exists only from here on, so the parked waiter is watched from here.
   */
  private void suspend(Context ctx, Admission admission, CompletableFuture<?> admitted) {
    ctx.future(() -> {
      cancelWhenRequestEnds(ctx, admission.parkedOn());
      return admitted;
    });
  }

  /** The cause of a failed, completed future, without joining it (no exception is thrown). */
  private static Throwable failure(CompletableFuture<?> done) {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    return done.handle(Gate::failure).getNow(null);
  }

  private static Throwable failure(Object value, Throwable failure) {
    return failure;
  }

  private Rejection refusal(Throwable failure, LimiterEntry limiter) {
    return withLimiterPolicy(answers.refusal(failure, false, null, null), limiter);
  }

  /** A granted request's limiter policy and free permits (with sluice.headers.concurrency). */
  private void limiterPolicy(Context ctx, LimiterEntry limiter) {
    if (limiterHeaders) {
      ConcurrencySnapshot now = limiter.limiter().snapshot(); // one read: limit() takes one too
      headers.writeLimiter(ctx, limiter.name(), now.limit(), now.limit() - now.inFlight());
    }
  }

  private Rejection withLimiterPolicy(Rejection r, LimiterEntry limiter) {
    if (!limiterHeaders) {
      return r;
    }
    ConcurrencySnapshot now = limiter.limiter().snapshot();
    int limit = now.limit();
    String[] items = headers.limiterItems(limiter.name(), limit, limit - now.inFlight());
    return Answers.withLimiterPolicy(
        r, limiter.name(), limit, limiter.config().maxConcurrency(), items);
  }

  /** At arrival: a key-cap answer names the key, and says when it is the shared unknown key. */
  private Rejection refusal(Throwable failure, LimiterEntry limiter, Caller caller) {
    return withLimiterPolicy(
        answers.refusal(failure, true, caller.key(), limiter.config().queueKey()), limiter);
  }

  /**
   * A request that ends while parked leaves the queue at once, instead of holding a slot until its
   * turn (as with Jetty's QoSHandler): Jetty reports async timeouts, errors and HTTP/2 resets to
   * the async listeners; a vanished HTTP/1.x client is noticed by the {@link DisconnectWatch}.
   */
  // the callback handles the failure; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void cancelWhenRequestEnds(Context ctx, CompletableFuture<Permit> acquired) {
    if (acquired == null) {
      // the permit came between parking and this call (a release on another thread granted it):
      // nothing waits any more, so nothing to watch; the after-handler releases the permit
      return;
    }
    Admission admission = ctx.attribute(Admission.ATTRIBUTE) instanceof Admission a ? a : null;
    Runnable clientLeft = () -> {
      if (admission != null) {
        admission.clientGone();
      }
      acquired.cancel(false);
    };
    Runnable stopWatching = disconnects.watch(ctx.req(), clientLeft);
    acquired.whenComplete((permit, failure) -> stopWatching.run());
    AsyncContext async = ctx.req().isAsyncStarted() ? ctx.req().getAsyncContext() : null;
    if (async == null) {
      return;
    }
    async.addListener(new AsyncListener() {
      @Override
      public void onComplete(AsyncEvent event) {
        clientLeft.run();
      }

      @Override
      public void onTimeout(AsyncEvent event) {
        acquired.cancel(false);
      }

      @Override
      public void onError(AsyncEvent event) {
        clientLeft.run();
      }

      @Override
      public void onStartAsync(AsyncEvent event) {
        // only the listeners of the current async cycle matter
      }
    });
  }

  /**
   * Decides into {@code into} when every rule is local (false when the store must answer); fails
   * open: a failure leaves {@code into} empty (allowed).
   */
  private boolean checkRulesNow(Context ctx, String path, RuleOutcomes into) {
    boolean shared = !OutcomeHolder.isVirtual(Thread.currentThread());
    ContextRequestInfo request = shared
        ? infos.get().of(ctx, path)
        : new ContextRequestInfo(ctx, path, settings, peers); // a virtual thread serves one request
    try {
      return rules.checkNow(request, into);
    } catch (RuntimeException e) {
      // fail open: a broken rule must not turn every request into a 500
      ruleFailures.warn("rate rules failed; request let through", e);
      into.set(RateVerdict.noRules());
      return true;
    } finally {
      if (shared) {
        request.clear();
      }
    }
  }

  private CompletableFuture<RateVerdict> checkRules(ContextRequestInfo request) {
    try {
      return rules.check(request).toCompletableFuture().exceptionally(e -> {
        ruleFailures.warn("rate rules failed; request let through", e);
        return RateVerdict.noRules();
      });
    } catch (RuntimeException e) {
      // fail open: a broken rule or store must not turn every request into a 500
      ruleFailures.warn("rate rules failed; request let through", e);
      return CompletableFuture.completedFuture(RateVerdict.noRules());
    }
  }

  /**
   * Writes the rate headers and throws the rejection if a rule refused the request; answers how long
   * a shaper rule wants it held (0: go on now).
   */
  private long apply(Context ctx, RuleOutcomes outcomes) {
    headers.write(ctx, outcomes);
    if (!outcomes.allowed()) {
      throw rejected(ctx, answers.rateLimited(outcomes.decision(outcomes.rejectedIndex())));
    }
    return outcomes.delayNanos();
  }

  private Rejection rejected(Context ctx, Rejection r) {
    metrics.onHttpRejection(r.why, r.status);
    if (log.isDebugEnabled()) {
      log.debug("{} {} rejected {}: {}", ctx.method(), ctx.path(), r.status, r.getMessage());
    }
    return r;
  }

  private static void run(Handler handler, Context ctx) {
    try {
      handler.handle(ctx);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }

  static String path(Context ctx) {
    String path = ctx.path();
    String contextPath = ctx.contextPath();
    if (contextPath != null
        && !contextPath.isEmpty()
        && !"/".equals(contextPath)
        && path.startsWith(contextPath)) {
      path = path.substring(contextPath.length());
    }
    return path.isEmpty() ? "/" : path;
  }
}
