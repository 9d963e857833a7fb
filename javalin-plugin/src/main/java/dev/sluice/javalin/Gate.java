package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.http.AdmissionFlow;
import dev.sluice.http.AdmissionFlow.Stopping;
import dev.sluice.http.AdmissionFlow.Verdict;
import dev.sluice.http.Answers;
import dev.sluice.http.Passage;
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
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The before- and after-handler logic: the {@link AdmissionFlow} every door shares decides (rate
 * rules first, so a request a rule rejects never takes a queue slot, then the path's concurrency
 * limiter); the gate maps a Javalin request in (its info, deadline and cost) and the verdict out
 * (headers, answers, metrics). A request that must wait is parked with {@code ctx.future(...)}, so
 * it holds no Jetty thread while queued; Javalin resumes the chain on the thread that completes
 * the future, which the limiter takes from the executor.
 */
final class Gate {

  private static final Logger log = LoggerFactory.getLogger(SluicePlugin.class);
  private static final CompletableFuture<Void> GO_ON = CompletableFuture.completedFuture(null);

  /** The request attribute holding the request's deadline, in the plugin clock's nanoseconds. */
  static final String DEADLINE = "dev.sluice.javalin.Deadline";

  private final Limiters limiters;
  private final ContextRequests requests;
  private final AdmissionFlow<Context> flow;
  private final Answers answers;
  private final RateHeaders headers;
  private final boolean limiterHeaders; // sluice.headers.concurrency
  private final Executor executor;
  private final Scheduler scheduler; // holds shaped requests
  private final SluiceMeterBinder metrics;
  private final DisconnectWatch disconnects;
  private final NanoClock clock; // cost samples

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
    this.limiters = limiters;
    this.requests = new ContextRequests(settings, metrics, ruleFailures, clock);
    this.answers = new Answers(settings.statuses());
    this.headers = new RateHeaders(settings.draftHeaders(), settings.xHeaders());
    this.limiterHeaders = settings.concurrencyHeaders();
    this.executor = executor;
    this.scheduler = scheduler;
    this.metrics = metrics;
    this.disconnects = disconnects;
    this.clock = clock;
    this.flow =
        new AdmissionFlow<>(limiters.all(), rules, requests, Stopping.REFUSES_EVERY_REQUEST);
  }

  void stopAdmitting() {
    flow.stopAdmitting();
  }

  /** The before-handler. */
  void before(Context ctx) {
    String path = path(ctx);
    ContextRequests.Turn turn = requests.turn(ctx);
    Passage passage = turn == null ? new Passage() : turn.passage();
    Verdict verdict;
    try {
      verdict = flow.admit(ctx, ctx.method().name(), path, passage);
    } finally {
      if (turn != null) {
        turn.end();
      }
    }
    Supplier<CompletableFuture<Void>> later = act(ctx, path, verdict, passage, null, null);
    if (later != null) {
      ctx.future(later);
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
    if (flow.isStopping()) {
      throw rejected(ctx, answers.shuttingDown());
    }
    String path = path(ctx);
    ContextRequests.Turn turn = requests.turn(ctx);
    Passage passage = turn == null ? new Passage() : turn.passage();
    Verdict verdict;
    try {
      verdict = flow.acquire(ctx, path, limiter, passage);
    } finally {
      if (turn != null) {
        turn.end();
      }
    }
    Supplier<CompletableFuture<Void>> later = act(ctx, path, verdict, passage, admission, handler);
    if (later == null) {
      handler.handle(ctx);
    } else {
      ctx.future(later);
    }
  }

  /**
   * Acts on the flow's verdict: writes the rules' headers, keeps the permit, throws the answer to a
   * refusal (counted). Answers null when the request goes on now; else what it waits for, made when
   * Javalin suspends it (the servlet async context exists only from then on, so a parked waiter is
   * watched from then on). {@code passage} is read here only: it may serve the thread's next request.
   *
   * @param held the request's permits, or null in the before-handler: a permit granted there at
   *     once is kept as the request's record itself, and an {@link Admission} is made only when the
   *     request must wait
   * @param endpoint the wrapped handler, run once a waiting request holds its permit; else null
   */
  private Supplier<CompletableFuture<Void>> act(
      Context ctx,
      String path,
      Verdict verdict,
      Passage passage,
      Admission held,
      Handler endpoint) {
    RuleOutcomes outcomes = passage.outcomes();
    if (outcomes != null) {
      headers.write(ctx, outcomes); // before the limiter's own: the order the answers had
    }
    DoorLimiter limiter = passage.limiter();
    return switch (verdict) {
      case PASS -> null;
      case ADMITTED -> {
        Permit permit = passage.permit();
        if (held == null && passage.caller() == null) {
          // a free permit at cost 1 (most requests): no record, no cost sample
          ctx.attribute(Admission.ATTRIBUTE, permit);
        } else {
          (held != null ? held : admission(ctx)).hold(limiter.name(), permit);
          if (passage.caller() != null) {
            costClockStarts(ctx);
          }
        }
        limiterPolicy(ctx, limiter);
        yield null;
      }
      case WAITING -> {
        Admission admission = held != null ? held : admission(ctx);
        CompletableFuture<Permit> acquired = passage.waiting();
        admission.park(acquired);
        CompletableFuture<Void> admitted = acquired.handle((permit, failed) -> {
          if (failed != null) {
            if (Answers.unwrap(failed) instanceof CancellationException) {
              // the request ended while parked (async timeout, reset, stop): resuming lets the
              // guard answer it, if anyone still listens; writing here would race Javalin's own
              // timeout path
              return null;
            }
            throw rejected(
                ctx, withLimiterPolicy(answers.refusal(failed, false, null, null), limiter));
          }
          admission.hold(limiter.name(), permit);
          limiterPolicy(ctx, limiter);
          costClockStarts(ctx);
          return null;
        });
        CompletableFuture<Void> then = endpoint == null
            ? admitted
            : admitted.thenRun(() -> {
              // a waiter cancelled while parked (async timeout, client gone, stop) holds no
              // permit: its endpoint must not run; answered as the guard answers a parked request
              if (admission.isParked()) {
                throw rejected(
                    ctx, admission.isClientGone() ? answers.clientGone() : answers.parkedTooLong());
              }
              run(endpoint, ctx);
            });
        yield () -> {
          cancelWhenRequestEnds(ctx, admission.parkedOn());
          return then;
        };
      }
      case RULES_PENDING -> {
        CompletableFuture<RateVerdict> pending = passage.pending();
        // the store answers on its own I/O thread: hop to the executor before going on, or the
        // endpoint would run on the store's event loop
        yield () -> pending.thenComposeAsync(
            decided -> {
              Passage next = new Passage();
              return resumed(ctx, path, flow.afterRules(ctx, path, limiter, decided, next), next);
            },
            executor);
      }
      case SHAPED -> {
        long delay = passage.delayNanos();
        yield () -> shaped(ctx, path, limiter, delay);
      }
      case SHUTTING_DOWN -> throw rejected(ctx, answers.shuttingDown());
      case RATE_LIMITED ->
        throw rejected(ctx, answers.rateLimited(outcomes.decision(outcomes.rejectedIndex())));
      case DEADLINE_SPENT -> throw rejected(ctx, answers.deadlineExceeded(limiter.name()));
      case BAD_REQUEST -> throw rejected(ctx, answers.badRequest(passage.badRequest()));
      // at arrival: a key-cap answer names the key, and says when it is the shared unknown key
      case REFUSED ->
        throw rejected(ctx, withLimiterPolicy(answers.refusalAtArrival(passage), limiter));
    };
  }

  /** {@link #act} in a stage that runs after the request was suspended. */
  private CompletableFuture<Void> resumed(
      Context ctx, String path, Verdict verdict, Passage passage) {
    // the request is suspended: a permit it gets now goes into its record, which the guard reads
    Admission held =
        verdict == Verdict.ADMITTED || verdict == Verdict.WAITING ? admission(ctx) : null;
    Supplier<CompletableFuture<Void>> later = act(ctx, path, verdict, passage, held, null);
    return later == null ? GO_ON : later.get();
  }

  /**
   * A shaper rule's delay (nginx {@code limit_req} without {@code nodelay}): the request is held,
   * with no thread, for its turn at the rule's steady rate, then asks its limiter. A request that
   * would overflow the rule's bucket was already rejected by the rule.
   */
  private CompletableFuture<Void> shaped(
      Context ctx, String path, DoorLimiter limiter, long delayNanos) {
    CompletableFuture<Void> due = new CompletableFuture<>();
    // the scheduler's thread only hands over: the rest of the chain (the endpoint) runs on the
    // executor, as a woken waiter's does
    scheduler.schedule(() -> execute(() -> due.complete(null)), delayNanos);
    if (limiter == null) {
      return due;
    }
    return due.thenCompose(v -> {
      Passage next = new Passage();
      return resumed(ctx, path, flow.acquire(ctx, path, limiter, next), next);
    });
  }

  private void execute(Runnable task) {
    try {
      executor.execute(task);
    } catch (RejectedExecutionException e) {
      task.run(); // the pool is stopping: better late on this thread than a request stuck forever
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

  /** A request under a learned cost holds its permit: its service time starts now. */
  private void costClockStarts(Context ctx) {
    CostSample sample = ctx.attribute(CostSample.ATTRIBUTE);
    if (sample != null) {
      sample.admittedNanos = clock.nanoTime();
    }
  }

  /** A granted request's limiter policy and free permits (with sluice.headers.concurrency). */
  private void limiterPolicy(Context ctx, DoorLimiter limiter) {
    if (limiterHeaders) {
      ConcurrencySnapshot now = limiter.limiter().snapshot(); // one read: limit() takes one too
      headers.writeLimiter(ctx, limiter.name(), now.limit(), now.limit() - now.inFlight());
    }
  }

  private Rejection withLimiterPolicy(Rejection r, DoorLimiter limiter) {
    if (!limiterHeaders) {
      return r;
    }
    ConcurrencySnapshot now = limiter.limiter().snapshot();
    int limit = now.limit();
    String[] items = headers.limiterItems(limiter.name(), limit, limit - now.inFlight());
    return Answers.withLimiterPolicy(
        r, limiter.name(), limit, limiter.config().maxConcurrency(), items);
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
