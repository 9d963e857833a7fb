package dev.sluice.http;

import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.config.PathLimiter;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RateVerdict;
import dev.sluice.rules.RuleOutcomes;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The admission decision every door makes, without a framework: a bypassed path goes on; while
 * stopping, the shutdown answer; then the rate rules (a request a rule refuses never takes a queue
 * slot); then the first limiter whose path matches is asked for a permit with the request's caller
 * (its class, key, cost and deadline budget). The door maps its request in through a {@link Door}
 * and acts on the {@link Verdict} (and the {@link Passage} it filled): it runs the request, parks
 * it on {@link Passage#waiting()}, or writes the answer the verdict names in its own terms (a
 * {@link Rejection} from {@link Answers}, a gRPC status).
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
 * <p>A door whose rules are counted in a shared store, or that holds requests back for a shaper
 * rule, goes on later with {@link #afterRules} (on {@link Verdict#RULES_PENDING}) or {@link
 * #acquire} (after {@link Verdict#SHAPED}'s delay); {@link #acquire} is also the step alone, for a
 * limiter the door names itself rather than by path.
 *
 * <p>Nothing is allocated on the common way through (no rule, a free permit at cost 1): the verdict
 * is a constant and the passage is the door's, which a door may reuse from one request to the next.
 *
 * @param <R> the door's request
 */
public final class AdmissionFlow<R> {

  /**
   * What a door knows of its requests and its limiters that the flow asks for, and where a rule
   * failure goes.
   *
   * @param <R> the door's request
   * @param <L> the door's limiter
   */
  public interface Door<R, L extends DoorLimiter> {

    /** True when {@code path} is never limited (health checks, metrics): the flow lets it by. */
    default boolean bypassed(String path) {
      return false;
    }

    /**
     * Who the request is, for the rules, the queue discipline and the cost: asked at most once per
     * call of the flow, and only when a rule guards the path, the limiter's queue needs a key or a
     * class, or the request is priced. The flow reads it only during the call that asked for it (a
     * shared store's rules included), so a door may hand out one it reuses once the call returns.
     */
    RequestInfo info(R request, String path);

    /**
     * What is left of the request's own deadline for {@code limiter}, in nanoseconds: {@link
     * #NO_DEADLINE} when it has none the door honours, 0 when it is spent (the request is then
     * refused with {@link Verdict#DEADLINE_SPENT}).
     */
    long budgetNanos(R request, L limiter);

    /**
     * The rules failed on this request (a bug in a rule, say); the flow goes on as if every rule
     * admitted it, since a broken rule must not turn every request into a refusal. The door logs.
     */
    void rulesFailed(RuntimeException failure);

    /**
     * Whether every request to {@code limiter} takes one unit of its limit (the default): the flow
     * then asks no {@link #units} and may hand out a free permit at once.
     */
    default boolean costsOne(L limiter) {
      return true;
    }

    /**
     * The units of {@code limiter}'s limit the request takes, when {@link #costsOne} is false.
     *
     * @param info who the request is
     * @throws BadRequest when the request states a cost the door refuses: {@link
     *     Verdict#BAD_REQUEST}
     */
    default int units(R request, L limiter, RequestInfo info) {
      return 1;
    }
  }

  /**
   * The {@link Door} of a door whose limiters are {@link PathLimiter}s (the servlet filter, the gRPC
   * interceptor).
   *
   * @param <R> the door's request
   */
  public interface Requests<R> extends Door<R, PathLimiter> {}

  /**
   * A request that states its cost wrongly: {@link Door#units} throws it and the flow answers
   * {@link Verdict#BAD_REQUEST}, the message in {@link Passage#badRequest()}.
   */
  public static final class BadRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A bad request, {@code message} saying what is wrong for the client. */
    public BadRequest(String message) {
      super(message, null, false, false); // an answer to a client, not a bug: no stack trace
    }
  }

  /** {@link Door#budgetNanos}'s answer for a request without a deadline. */
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
    REFUSED,
    /** The request states its cost wrongly: {@link Passage#badRequest()} says how. */
    BAD_REQUEST,
    /**
     * A rule counted in a shared store decides: park the request on {@link Passage#pending()} and
     * go on with {@link #afterRules} once it completes (it never fails); {@link Passage#limiter()}
     * is the limiter to ask then, or null.
     */
    RULES_PENDING,
    /**
     * The rules admit the request after a delay (a shaper rule): {@link Passage#outcomes()} holds
     * their decisions; hold the request {@link Passage#delayNanos()}, then go on with {@link
     * #acquire} when {@link Passage#limiter()} is not null.
     */
    SHAPED
  }

  private final List<? extends DoorLimiter> limiters;
  private final RateRules rules; // null: no rate rules
  private final Door<R, DoorLimiter> door;
  private final Stopping whenStopping;
  private volatile boolean stopping;

  /**
   * A flow over {@code limiters} (tried in order: the first that guards a path is asked) and
   * {@code rules}.
   *
   * @param rules the rate rules, or null when none is declared; a door that cannot park a request
   *     for a shared store or hold it for a shaper rule builds them without either
   * @param <L> the door's limiter
   */
  @SuppressWarnings("unchecked") // the door is only ever handed the limiters it gave: its own L
  public <L extends DoorLimiter> AdmissionFlow(
      List<L> limiters, RateRules rules, Door<R, L> door, Stopping whenStopping) {
    this.limiters = List.copyOf(limiters);
    this.rules = rules;
    this.door = (Door<R, DoorLimiter>) Objects.requireNonNull(door, "door");
    this.whenStopping = Objects.requireNonNull(whenStopping, "whenStopping");
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
    if (door.bypassed(path)) {
      return Verdict.PASS;
    }
    if (stopping && whenStopping == Stopping.REFUSES_EVERY_REQUEST) {
      return Verdict.SHUTTING_DOWN;
    }
    DoorLimiter limiter = DoorLimiter.first(limiters, path);
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
      info = door.info(request, path);
      RuleOutcomes outcomes = into.outcomesToFill();
      boolean decided;
      try {
        decided = rules.checkNow(info, outcomes);
      } catch (RuntimeException e) {
        door.rulesFailed(e); // fails open: as if no rule decided
        outcomes = null;
        decided = true;
      }
      if (!decided) { // a rule counted in the shared store: its answer may come later
        CompletableFuture<RateVerdict> pending = check(info);
        if (!pending.isDone()) {
          into.pending = pending;
          return Verdict.RULES_PENDING;
        }
        outcomes.set(pending.getNow(RateVerdict.noRules()));
      }
      into.outcomes = outcomes;
    }
    return decided(request, path, limiter, info, into);
  }

  /**
   * Goes on with a request that got {@link Verdict#RULES_PENDING}, now that the rules' {@code
   * verdict} is known: the verdict of the rules, then the limiter step, into {@code into}, which
   * is cleared first (a new one: the first call's passage may serve another request by now).
   *
   * @param limiter the {@link Passage#limiter()} of the first call
   */
  public Verdict afterRules(
      R request, String path, DoorLimiter limiter, RateVerdict verdict, Passage into) {
    into.clear();
    into.limiter = limiter;
    into.outcomes = into.outcomesToFill().set(verdict);
    return decided(request, path, limiter, null, into);
  }

  /**
   * The limiter step alone: asks {@code limiter} (one of this flow's) for a permit for {@code
   * request}, into {@code into}, which is cleared first. Answers {@link Verdict#ADMITTED}, {@link
   * Verdict#WAITING}, {@link Verdict#REFUSED}, {@link Verdict#DEADLINE_SPENT} or {@link
   * Verdict#BAD_REQUEST}; stopping is the door's to check.
   */
  public Verdict acquire(R request, String path, DoorLimiter limiter, Passage into) {
    into.clear();
    into.limiter = limiter;
    return acquire(request, path, limiter, null, into);
  }

  private Verdict decided(
      R request, String path, DoorLimiter limiter, RequestInfo info, Passage into) {
    RuleOutcomes outcomes = into.outcomes;
    if (outcomes != null) {
      if (!outcomes.allowed()) {
        return Verdict.RATE_LIMITED;
      }
      long delay = outcomes.delayNanos();
      if (delay > 0) {
        into.delayNanos = delay;
        return Verdict.SHAPED;
      }
    }
    if (limiter == null) {
      return Verdict.PASS;
    }
    return acquire(request, path, limiter, info, into);
  }

  private Verdict acquire(
      R request, String path, DoorLimiter limiter, RequestInfo known, Passage into) {
    long budget = door.budgetNanos(request, limiter);
    if (budget == 0) {
      return Verdict.DEADLINE_SPENT;
    }
    boolean one = door.costsOne(limiter);
    if (one) {
      // the common case, a free permit and nobody waiting: no caller, no future (a limiter whose
      // permits live in a shared store has no such shortcut, and answers null)
      Permit now = limiter.limiter().acquireIfFree();
      if (now != null) {
        into.permit = now;
        return Verdict.ADMITTED;
      }
    }
    // who asks, for the queue discipline (key, class) and the cost: asked at most once, and not
    // at all for a plain FIFO limiter at cost 1
    RequestInfo info = known;
    if (info == null && (limiter.callers().needed() || !one)) {
      info = door.info(request, path);
    }
    Caller caller = limiter.callers().needed() ? limiter.callers().of(info) : Caller.DEFAULT;
    if (!one) {
      int units;
      try {
        units = door.units(request, limiter, info);
      } catch (BadRequest e) {
        into.badRequest = e.getMessage();
        return Verdict.BAD_REQUEST;
      }
      if (units != 1) {
        caller = caller.withCost(units);
      }
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

  /** The shared store's decision; fails open: a failure is no rule's decision, never a refusal. */
  private CompletableFuture<RateVerdict> check(RequestInfo info) {
    try {
      return rules.check(info).toCompletableFuture().exceptionally(e -> {
        door.rulesFailed(e instanceof RuntimeException r ? r : new CompletionException(e));
        return RateVerdict.noRules();
      });
    } catch (RuntimeException e) {
      door.rulesFailed(e);
      return CompletableFuture.completedFuture(RateVerdict.noRules());
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
