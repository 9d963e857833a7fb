package dev.sluice.javalin;

import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Permit;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import io.javalin.http.Context;
import io.javalin.http.Handler;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
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

  private final Settings settings;
  private final Limiters limiters;
  private final RateRules rules; // null: no rate rules
  private final Answers answers;
  private final RateHeaders headers;
  private final Executor executor;
  private final SluiceMeterBinder metrics;
  private final WarnOnce ruleFailures;
  private final DisconnectWatch disconnects;
  private volatile boolean stopping;

  Gate(Settings settings, Limiters limiters, RateRules rules, Executor executor,
      SluiceMeterBinder metrics, WarnOnce ruleFailures, DisconnectWatch disconnects) {
    this.settings = settings;
    this.limiters = limiters;
    this.rules = rules;
    this.answers = new Answers(settings.statuses());
    this.headers = new RateHeaders(settings.draftHeaders(), settings.xHeaders());
    this.executor = executor;
    this.metrics = metrics;
    this.ruleFailures = ruleFailures;
    this.disconnects = disconnects;
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
    Admission admission = new Admission();
    ctx.attribute(Admission.ATTRIBUTE, admission);
    LimiterEntry limiter = limiters.forPath(path).orElse(null);
    CompletableFuture<RateVerdict> verdict = checkRules(ctx, path);
    if (verdict == null || verdict.isDone()) {
      if (verdict != null) {
        apply(ctx, verdict.join());
      }
      if (limiter != null) {
        admit(ctx, admission, limiter, null);
      }
      return;
    }
    // a shared store answers on its own I/O thread: hop to the executor before going on, or the
    // endpoint would run on the store's event loop
    ctx.future(() -> verdict.thenApplyAsync(v -> {
      apply(ctx, v);
      return v;
    }, executor).thenCompose(v -> limiter == null
        ? CompletableFuture.completedFuture(null)
        : acquire(ctx, admission, limiter)));
  }

  /**
   * The before-matched guard: the endpoint never runs without its permit. Javalin's async timeout
   * (http.asyncTimeout) resumes the chain, endpoint included, while the request still waits in the
   * queue; this answers it as a queue timeout instead, and the waiter is then cancelled.
   */
  void guard(Context ctx) {
    Admission admission = ctx.attribute(Admission.ATTRIBUTE);
    if (admission != null && admission.isParked()) {
      throw rejected(ctx, answers.parkedTooLong());
    }
  }

  /** The after-handler: gives back every permit the request holds. */
  void after(Context ctx) {
    Admission admission = ctx.attribute(Admission.ATTRIBUTE);
    if (admission != null) {
      admission.close();
    }
  }

  /** The endpoint wrapper of {@link SluicePlugin#limited}. */
  void limited(String limiterName, Handler handler, Context ctx) throws Exception {
    LimiterEntry limiter = limiters.byName(limiterName).orElseThrow(() ->
        new IllegalStateException("no Sluice limiter named '" + limiterName + "'"));
    Admission admission = ctx.attribute(Admission.ATTRIBUTE);
    if (admission == null) { // a bypassed path: the wrapper still limits it
      admission = new Admission();
      ctx.attribute(Admission.ATTRIBUTE, admission);
    }
    if (admission.holds(limiterName)) {
      handler.handle(ctx);
      return;
    }
    if (stopping) {
      throw rejected(ctx, answers.shuttingDown());
    }
    if (admit(ctx, admission, limiter, handler)) {
      handler.handle(ctx);
    }
  }

  /**
   * Takes a permit now if one is free (returns true), answers at once if refused, or parks the
   * request until the limiter decides (returns false; {@code then} runs after admission).
   */
  private boolean admit(Context ctx, Admission admission, LimiterEntry limiter, Handler then) {
    CompletableFuture<Permit> acquired = limiter.limiter().acquire();
    if (acquired.isDone() && !acquired.isCompletedExceptionally()) {
      admission.hold(limiter.name(), acquired.join());
      return true;
    }
    if (acquired.isDone()) {
      throw rejected(ctx, refusal(acquired));
    }
    admission.park();
    ctx.future(() -> {
      cancelWhenRequestEnds(ctx, acquired);
      CompletableFuture<Void> admitted = granted(ctx, admission, limiter, acquired);
      return then == null ? admitted : admitted.thenRun(() -> run(then, ctx));
    });
    return false;
  }

  private CompletableFuture<Void> acquire(Context ctx, Admission admission, LimiterEntry limiter) {
    CompletableFuture<Permit> acquired = limiter.limiter().acquire();
    if (!acquired.isDone()) {
      admission.park();
      cancelWhenRequestEnds(ctx, acquired); // the limiter's own future: cancelling it leaves the queue
    }
    return granted(ctx, admission, limiter, acquired);
  }

  private CompletableFuture<Void> granted(Context ctx, Admission admission, LimiterEntry limiter,
      CompletableFuture<Permit> acquired) {
    return acquired.handle((permit, failure) -> {
      if (failure != null) {
        if (unwrap(failure) instanceof CancellationException) {
          // the request ended while parked (async timeout, reset, stop): resuming lets the guard
          // answer it, if anyone still listens; writing here would race Javalin's own timeout path
          return null;
        }
        throw rejected(ctx, refusal(failure));
      }
      admission.hold(limiter.name(), permit);
      return null;
    });
  }

  private Rejection refusal(CompletableFuture<Permit> failed) {
    try {
      failed.join();
      throw new IllegalStateException("not failed");
    } catch (CompletionException e) {
      return refusal(e);
    }
  }

  private Rejection refusal(Throwable failure) {
    Throwable cause = unwrap(failure);
    if (cause instanceof ConcurrencyRejectedException e) {
      return answers.fromLimiter(e);
    }
    throw new CompletionException(cause);
  }

  private static Throwable unwrap(Throwable failure) {
    return failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause() : failure;
  }

  /**
   * A request that ends while parked leaves the queue at once, instead of holding a slot until its
   * turn (as with Jetty's QoSHandler): Jetty reports async timeouts, errors and HTTP/2 resets to
   * the async listeners; a vanished HTTP/1.x client is noticed by the {@link DisconnectWatch}.
   */
  private void cancelWhenRequestEnds(Context ctx, CompletableFuture<Permit> acquired) {
    Runnable stopWatching = disconnects.watch(ctx.req(), () -> acquired.cancel(false));
    acquired.whenComplete((permit, failure) -> stopWatching.run());
    AsyncContext async = ctx.req().isAsyncStarted() ? ctx.req().getAsyncContext() : null;
    if (async == null) {
      return;
    }
    async.addListener(new AsyncListener() {
      @Override
      public void onComplete(AsyncEvent event) {
        acquired.cancel(false);
      }

      @Override
      public void onTimeout(AsyncEvent event) {
        acquired.cancel(false);
      }

      @Override
      public void onError(AsyncEvent event) {
        acquired.cancel(false);
      }

      @Override
      public void onStartAsync(AsyncEvent event) {
        // only the listeners of the current async cycle matter
      }
    });
  }

  private CompletableFuture<RateVerdict> checkRules(Context ctx, String path) {
    if (rules == null) {
      return null;
    }
    try {
      return rules.check(new ContextRequestInfo(ctx, path, settings)).toCompletableFuture()
          .exceptionally(e -> {
            ruleFailures.warn("rate rules failed; request let through", e);
            return null;
          });
    } catch (RuntimeException e) {
      // fail open: a broken rule or store must not turn every request into a 500
      ruleFailures.warn("rate rules failed; request let through", e);
      return null;
    }
  }

  private void apply(Context ctx, RateVerdict verdict) {
    if (verdict == null) {
      return;
    }
    headers.write(ctx, verdict);
    if (!verdict.allowed() && verdict.rejectedBy().isPresent()) {
      throw rejected(ctx, answers.rateLimited(verdict.rejectedBy().get()));
    }
  }

  private Rejection rejected(Context ctx, Rejection r) {
    metrics.onHttpRejection(r.reason, r.status);
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
    if (contextPath != null && !contextPath.isEmpty() && !"/".equals(contextPath)
        && path.startsWith(contextPath)) {
      path = path.substring(contextPath.length());
    }
    return path.isEmpty() ? "/" : path;
  }
}
