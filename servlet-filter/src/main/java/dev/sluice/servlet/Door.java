package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.AdmissionFlow;
import dev.sluice.http.AdmissionFlow.Stopping;
import dev.sluice.http.Answers;
import dev.sluice.http.Deadline;
import dev.sluice.http.Passage;
import dev.sluice.http.RateHeaders;
import dev.sluice.http.Rejection;
import dev.sluice.http.TrustedProxies;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RuleOutcomes;
import jakarta.servlet.AsyncContext;
import jakarta.servlet.AsyncEvent;
import jakarta.servlet.AsyncListener;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.function.ObjIntConsumer;

/**
 * The filter's way with one request: the {@link AdmissionFlow} every door shares (bypassed paths,
 * rate rules, of which a refused request never takes a queue slot, then the first limiter whose path
 * matches), on the servlet API. A request that must wait is suspended with {@code startAsync} (the
 * async timeout disabled: the limiter's queue timeout and the request's deadline bound the wait)
 * and holds no container thread; once the limiter grants its permit it is dispatched again, through
 * this filter, to the rest of the chain. The answers are {@link Answers}', as every HTTP door's.
 */
final class Door {

  private static final System.Logger log = System.getLogger(SluiceFilter.class.getName());

  private final SluiceSettings settings;
  private final List<PathLimiter> limiters;
  private final AdmissionFlow<HttpServletRequest> flow;
  private final Answers answers;
  private final RateHeaders<HttpServletResponse, HeaderField> headers;
  private final ObjIntConsumer<String> rejections;

  /**
   * @param rejections hears every answer the filter gives instead of the application (its reason
   *     and status), or null
   */
  Door(
      SluiceSettings settings,
      TrustedProxies proxies,
      List<PathLimiter> limiters,
      RateRules rules,
      ObjIntConsumer<String> rejections) {
    this.settings = settings;
    this.rejections = rejections != null ? rejections : (why, status) -> {};
    this.limiters = List.copyOf(limiters);
    this.flow = new AdmissionFlow<>(
        limiters, rules, new Requests(settings, proxies), Stopping.REFUSES_EVERY_REQUEST);
    this.answers = new Answers(settings.statuses());
    this.headers =
        new RateHeaders<>(settings.draftHeaders(), settings.xHeaders(), HeaderField.ON_SERVLET);
  }

  void stopAdmitting() {
    flow.stopAdmitting();
  }

  List<PathLimiter> limiters() {
    return limiters;
  }

  java.time.Duration drainTimeout() {
    return settings.drainTimeout();
  }

  void filter(HttpServletRequest req, HttpServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    if (req.getAttribute(Admission.ATTRIBUTE) instanceof Admission admission) {
      if (req.getDispatcherType() == DispatcherType.ASYNC && admission.resume()) {
        // the dispatch of a request that waited: its permit is held
        headers(res, admission.outcomes(), admission.limiterEntry());
        runThenRelease(req, res, chain, admission);
      } else {
        // a further dispatch (forward, include, error, the application's own async) of a request
        // already admitted: its permit is released where it was taken
        chain.doFilter(req, res);
      }
      return;
    }
    // a new passage per request: a parked request keeps its rules' outcomes for its headers
    Passage passage = new Passage();
    switch (flow.admit(req, req.getMethod(), path(req), passage)) {
      case PASS -> {
        headers(res, passage.outcomes(), null);
        chain.doFilter(req, res);
      }
      case ADMITTED ->
        admitted(
            req,
            res,
            chain,
            new Admission(passage.limiter(), passage.permit(), passage.outcomes()));
      case WAITING -> park(req, res, passage);
      case SHUTTING_DOWN -> answer(res, answers.shuttingDown());
      case RATE_LIMITED -> {
        RuleOutcomes outcomes = passage.outcomes();
        headers.write(res, outcomes);
        answer(res, answers.rateLimited(outcomes.decision(outcomes.rejectedIndex())));
      }
      case DEADLINE_SPENT ->
        answer(res, answers.deadlineExceeded(passage.limiter().name()));
      case REFUSED ->
        answer(res, withLimiterPolicy(answers.refusalAtArrival(passage), passage.limiter()));
      // LocalDoor refuses what leads to these: rules in a shared store, shaper rules, a cost
      case RULES_PENDING, SHAPED, BAD_REQUEST ->
        throw new IllegalStateException(
            "the servlet filter counts rules locally, holds no request back, prices none");
    }
  }

  /** Suspends a request that waits in the queue, without a thread, until its turn. */
  // the grant's callback handles every outcome; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void park(HttpServletRequest req, HttpServletResponse res, Passage passage)
      throws ServletException {
    CompletableFuture<Permit> acquired = passage.waiting();
    if (!req.isAsyncSupported()) {
      acquired.cancel(false);
      throw new ServletException("SluiceFilter queues a request without holding a thread, which"
          + " needs async support: register the filter and the servlets it guards with"
          + " asyncSupported=true, for the REQUEST and ASYNC dispatcher types");
    }
    Admission admission = new Admission(passage.limiter(), acquired, passage.outcomes());
    req.setAttribute(Admission.ATTRIBUTE, admission);
    AsyncContext async = req.startAsync(req, res);
    async.setTimeout(0); // the queue's own timeout and the request's deadline bound the wait
    async.addListener(requestEnd(admission));
    acquired.whenComplete((permit, failed) -> granted(async, admission, permit, failed));
  }

  /** The limiter decided a queued request: dispatched again with its permit, or answered. */
  private void granted(AsyncContext async, Admission admission, Permit permit, Throwable failed) {
    if (permit != null) {
      if (admission.hold(permit)) {
        async.dispatch();
      }
      return;
    }
    if (Answers.unwrap(failed) instanceof CancellationException) {
      return; // the request ended while queued (the client left): nobody to answer
    }
    Rejection r =
        withLimiterPolicy(answers.refusal(failed, false, null, null), admission.limiterEntry());
    try {
      answer((HttpServletResponse) async.getResponse(), r);
    } catch (IOException | RuntimeException e) {
      log.log(Level.DEBUG, "the answer to a queued request was not written", e);
    } finally {
      admission.release();
      async.complete();
    }
  }

  private void admitted(
      HttpServletRequest req, HttpServletResponse res, FilterChain chain, Admission admission)
      throws IOException, ServletException {
    req.setAttribute(Admission.ATTRIBUTE, admission);
    headers(res, admission.outcomes(), admission.limiterEntry());
    runThenRelease(req, res, chain, admission);
  }

  /**
   * Runs the rest of the chain; the permit goes back when the request is over: now, or, when the
   * application went async itself, when its async cycle ends.
   */
  private void runThenRelease(
      HttpServletRequest req, HttpServletResponse res, FilterChain chain, Admission admission)
      throws IOException, ServletException {
    try {
      chain.doFilter(req, res);
    } finally {
      if (req.isAsyncStarted()) {
        req.getAsyncContext().addListener(requestEnd(admission));
      } else {
        admission.release();
      }
    }
  }

  /** The rules' headers of an admitted request, and its limiter's own with the concurrency headers. */
  private void headers(HttpServletResponse res, RuleOutcomes outcomes, DoorLimiter limiter) {
    if (outcomes != null) {
      headers.write(res, outcomes);
    }
    if (limiter != null && settings.concurrencyHeaders()) {
      ConcurrencySnapshot now = limiter.limiter().snapshot();
      headers.writeLimiter(res, limiter.name(), now.limit(), now.limit() - now.inFlight());
    }
  }

  private Rejection withLimiterPolicy(Rejection r, DoorLimiter limiter) {
    if (!settings.concurrencyHeaders()) {
      return r;
    }
    ConcurrencySnapshot now = limiter.limiter().snapshot();
    int limit = now.limit();
    String[] items = headers.limiterItems(limiter.name(), limit, limit - now.inFlight());
    return Answers.withLimiterPolicy(
        r, limiter.name(), limit, limiter.config().maxConcurrency(), items);
  }

  private void answer(HttpServletResponse res, Rejection r) throws IOException {
    rejections.accept(r.why, r.status);
    if (res.isCommitted()) {
      return;
    }
    try {
      Answers.write(r, new ServletAnswer(res));
    } catch (java.io.UncheckedIOException e) {
      throw e.getCause();
    }
  }

  /** The path within the application: the request URI without the context path. */
  static String path(HttpServletRequest req) {
    String uri = req.getRequestURI();
    String context = req.getContextPath();
    String path = context != null && !context.isEmpty() && uri.startsWith(context)
        ? uri.substring(context.length())
        : uri;
    return path.isEmpty() ? "/" : path;
  }

  /** What the flow asks of a servlet request. */
  private static final class Requests implements AdmissionFlow.Requests<HttpServletRequest> {
    private final SluiceSettings settings;
    private final TrustedProxies proxies;
    private volatile boolean ruleFailureLogged;

    Requests(SluiceSettings settings, TrustedProxies proxies) {
      this.settings = settings;
      this.proxies = proxies;
    }

    @Override
    public boolean bypassed(String path) {
      return settings.bypassed(path);
    }

    @Override
    public RequestInfo info(HttpServletRequest req, String path) {
      return new ServletRequestInfo(req, path, settings, proxies);
    }

    /**
     * The request's own budget from the limiter's {@code deadline-header}: none when the limiter
     * reads none or the request sends none (or a malformed one).
     */
    @Override
    public long budgetNanos(HttpServletRequest req, PathLimiter limiter) {
      String header = limiter.config().deadlineHeader().orElse(null);
      String raw = header == null ? null : req.getHeader(header);
      if (raw == null) {
        return AdmissionFlow.NO_DEADLINE;
      }
      long budget = Deadline.parseNanos(raw);
      return budget == Deadline.MALFORMED ? AdmissionFlow.NO_DEADLINE : budget;
    }

    @Override
    public void rulesFailed(RuntimeException failure) {
      if (!ruleFailureLogged) {
        ruleFailureLogged = true;
        log.log(Level.WARNING, "rate rules failed; request let through", failure);
      }
    }
  }

  /** What ends {@code admission}'s request: its queue place and its permit are given back. */
  AsyncListener requestEnd(Admission admission) {
    return new RequestEnd(admission);
  }

  /**
   * A request that ends while queued leaves the queue at once (the limiter counts it cancelled);
   * one that ends admitted gives its permit back. The container ends a queued request when its
   * client is gone (an error: a reset, a failed read or write) or when it completes it after such
   * an error: the filter answers it as the Javalin plugin answers a client that left, cancelled
   * with 499 (counted, written to nobody).
   */
  private final class RequestEnd implements AsyncListener {
    private final Admission admission;

    RequestEnd(Admission admission) {
      this.admission = admission;
    }

    private void ended(boolean clientGone) {
      if (admission.leaveQueue() && clientGone) {
        Rejection r = answers.clientGone();
        rejections.accept(r.why, r.status);
      }
      admission.release();
    }

    @Override
    public void onComplete(AsyncEvent event) {
      ended(true);
    }

    @Override
    public void onTimeout(AsyncEvent event) {
      // the filter disables the async timeout; the application set one: its timeout, not a client
      ended(false);
    }

    @Override
    public void onError(AsyncEvent event) {
      ended(true);
    }

    @Override
    public void onStartAsync(AsyncEvent event) {
      // the application went async again: keep listening to the new cycle
      event.getAsyncContext().addListener(this);
    }
  }
}
