package dev.sluice.http;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.PathLimiter;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RuleOutcomes;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/**
 * The admission decision every door makes, without a framework: a bypassed path goes on; while
 * stopping, the shutdown answer; then the rate rules (a request a rule refuses never takes a queue
 * slot); then the first limiter whose path matches is asked for a permit with the request's caller
 * (its class, key and deadline budget). The door maps its request in through {@link Requests} and
 * acts on the {@link Verdict} (and the {@link Passage} it filled): it runs the request, parks it on
 * {@link Passage#waiting()}, or writes the answer the verdict names in its own terms (a {@link
 * Rejection} from {@link Answers}, a gRPC status).
 *
 * <pre>{@code
 * AdmissionFlow<HttpServletRequest> flow =
 *     new AdmissionFlow<>(limiters, rules, requests, AdmissionFlow.Stopping.REFUSES_EVERY_REQUEST);
 * Passage passage = new Passage();
 * switch (flow.admit(req, req.getMethod(), path, passage)) {
 *   case ADMITTED -> run(req, passage.permit());
 *   case WAITING -> park(req, passage.waiting());
 *   default -> answer(req, passage);
 * }
 * }</pre>
 *
 * <p>Nothing is allocated on the common way through (no rule, a free permit): the verdict is a
 * constant and the passage is the door's, which a door may reuse from one request to the next.
 *
 * @param <R> the door's request
 */
public final class AdmissionFlow<R> {

  /** What the door knows of a request that the flow asks for, and where a rule failure goes. */
  public interface Requests<R> {

    /** True when {@code path} is never limited (health checks, metrics): the flow lets it by. */
    default boolean bypassed(String path) {
      return false;
    }

    /**
     * Who the request is, for the rules and the queue discipline: asked at most once per request,
     * and only when a rule guards the path or the limiter's queue needs a key or a class.
     */
    RequestInfo info(R request, String path);

    /**
     * What is left of the request's own deadline for {@code limiter}, in nanoseconds: {@link
     * #NO_DEADLINE} when it has none the door honours, 0 when it is spent (the request is then
     * refused with {@link Verdict#DEADLINE_SPENT}).
     */
    long budgetNanos(R request, PathLimiter limiter);

    /**
     * The rules failed on this request (a bug in a rule, say); the flow goes on as if every rule
     * admitted it, since a broken rule must not turn every request into a refusal. The door logs.
     */
    void rulesFailed(RuntimeException failure);
  }

  /** {@link Requests#budgetNanos}'s answer for a request without a deadline. */
  public static final long NO_DEADLINE = -1;

  /** Which requests are refused while the door stops admitting. */
  public enum Stopping {
    /**
     * Every request that is not bypassed, guarded or not: an HTTP door's load balancer reads the
     * 503 of any path and stops sending.
     */
    REFUSES_EVERY_REQUEST,
    /** Only the requests a limiter or a rule guards; the others go on. */
    REFUSES_GUARDED
  }

  /** What the door does with the request; the details are in the {@link Passage}. */
  public enum Verdict {
    /**
     * Go on without a permit: the path is bypassed, or no limiter guards it; {@link
     * Passage#outcomes()} holds the rules' decisions, if any decided (their headers to write).
     */
    PASS,
    /** The permit is held ({@link Passage#permit()}): run the request, then release it. */
    ADMITTED,
    /**
     * The request waits in the limiter's queue ({@link Passage#waiting()}): park it until the
     * future completes with its permit or fails with the refusal; cancel the future if the
     * request ends first.
     */
    WAITING,
    /** The door stops admitting: the shutdown answer. */
    SHUTTING_DOWN,
    /**
     * A rule refused the request: {@link Passage#outcomes()} holds the decisions, the rejecting
     * one at {@link RuleOutcomes#rejectedIndex()}.
     */
    RATE_LIMITED,
    /** The request's own deadline was spent when it arrived ({@link Passage#limiter()}). */
    DEADLINE_SPENT,
    /**
     * The limiter refused the request at once: {@link Passage#failure()}, to map with {@link
     * Answers#refusal} ({@code atArrival} true, with {@link Passage#caller()}'s key).
     */
    REFUSED
  }

  private final List<PathLimiter> limiters;
  private final RateRules rules; // null: no rate rules
  private final Requests<R> requests;
  private final Stopping whenStopping;
  private volatile boolean stopping;

  /**
   * A flow over {@code limiters} (tried in order, see {@link PathLimiter#first}) and {@code rules}.
   *
   * @param rules the rate rules, or null when none is declared; every rule must decide locally
   *     ({@link RateRules#checkNow(RequestInfo, RuleOutcomes)}): a rule counted in a shared store
   *     lets the request by undecided
   */
  public AdmissionFlow(
      List<PathLimiter> limiters, RateRules rules, Requests<R> requests, Stopping whenStopping) {
    this.limiters = List.copyOf(limiters);
    this.rules = rules;
    this.requests = Objects.requireNonNull(requests, "requests");
    this.whenStopping = Objects.requireNonNull(whenStopping, "whenStopping");
  }

  /** The limiters, in the order they are tried. */
  public List<PathLimiter> limiters() {
    return limiters;
  }

  /** From now on requests get {@link Verdict#SHUTTING_DOWN} (see {@link Stopping}). */
  public void stopAdmitting() {
    stopping = true;
  }

  /** Whether {@link #stopAdmitting()} was called. */
  public boolean isStopping() {
    return stopping;
  }

  /**
   * Decides {@code request} to {@code path} (the path the limiters and rules match: within the
   * application, or a gRPC method's {@code /package.Service/Method}) with HTTP method {@code
   * method}, into {@code into}, which is cleared first.
   */
  public Verdict admit(R request, String method, String path, Passage into) {
    into.clear();
    if (requests.bypassed(path)) {
      return Verdict.PASS;
    }
    if (stopping && whenStopping == Stopping.REFUSES_EVERY_REQUEST) {
      return Verdict.SHUTTING_DOWN;
    }
    PathLimiter limiter = PathLimiter.first(limiters, path);
    boolean ruled = rules != null && rules.guards(method, path);
    if (limiter == null && !ruled) {
      return Verdict.PASS;
    }
    if (stopping) {
      return Verdict.SHUTTING_DOWN;
    }
    into.limiter = limiter;
    RequestInfo info = null;
    // a path no rule guards (most, in many services) builds no request info and writes no header
    if (ruled) {
      info = requests.info(request, path);
      RuleOutcomes outcomes = checkRules(info, into.outcomesToFill());
      into.outcomes = outcomes;
      if (outcomes != null && !outcomes.allowed()) {
        return Verdict.RATE_LIMITED;
      }
    }
    if (limiter == null) {
      return Verdict.PASS;
    }
    return acquire(request, path, limiter, info, into);
  }

  private Verdict acquire(
      R request, String path, PathLimiter limiter, RequestInfo known, Passage into) {
    long budget = requests.budgetNanos(request, limiter);
    if (budget == 0) {
      return Verdict.DEADLINE_SPENT;
    }
    // the common case, a free permit and nobody waiting: no caller, no future
    Permit now = limiter.limiter().acquireIfFree();
    if (now != null) {
      into.permit = now;
      return Verdict.ADMITTED;
    }
    Caller caller = Caller.DEFAULT;
    if (limiter.callers().needed()) {
      caller = limiter.callers().of(known != null ? known : requests.info(request, path));
    }
    if (budget > 0) {
      caller = caller.withTimeout(Duration.ofNanos(budget)); // the shorter of it and queue-timeout
      into.deadlineBinds = budget < limiter.limiter().spec().queueTimeout().toNanos();
    }
    into.caller = caller;
    CompletableFuture<Permit> acquired = limiter.limiter().acquire(caller);
    if (acquired.isDone()) {
      Throwable failure = failure(acquired);
      if (failure != null) {
        into.failure = failure;
        return Verdict.REFUSED;
      }
      into.permit = acquired.getNow(null);
      return Verdict.ADMITTED;
    }
    into.waiting = acquired;
    return Verdict.WAITING;
  }

  /** Fails open: the outcomes of the rules, or null when none decided (or they failed). */
  private RuleOutcomes checkRules(RequestInfo info, RuleOutcomes outcomes) {
    try {
      // a door's rules are local (checked when built): the answer is at hand
      return rules.checkNow(info, outcomes) ? outcomes : null;
    } catch (RuntimeException e) {
      requests.rulesFailed(e);
      return null;
    }
  }

  /** The cause of a failed, completed future, without joining it (no exception is thrown). */
  private static Throwable failure(CompletableFuture<?> done) {
    if (!done.isCompletedExceptionally()) {
      return null;
    }
    return done.handle((v, failure) -> failure).getNow(null);
  }
}
