package dev.sluice.grpc;

import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceSettings;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RuleDecision;
import dev.sluice.rules.RuleOutcomes;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Asks the limiter that guards a call's method for a permit before the call starts: admitted at
 * once, the handler starts now; queued, the call waits as a {@link QueuedCall} (no thread, no
 * message read) and starts on the limiter's executor when its turn comes; refused, it is closed
 * with the {@link Answer} of the contract. The caller's gRPC deadline is the call's deadline: it
 * shortens the wait, and with {@code reject-early} a call whose deadline is sooner than the
 * predicted wait is answered {@code DEADLINE_EXCEEDED} at once.
 */
final class LimitingInterceptor implements ServerInterceptor {

  /** Every gRPC call is a POST on the wire: what a rule's {@code method} is compared with. */
  static final String METHOD = "POST";

  private static final System.Logger log = System.getLogger(LimitingInterceptor.class.getName());

  private final List<PathLimiter> limiters;
  private final RateRules rules; // null: no rate rules
  private final SluiceSettings settings;
  private volatile boolean stopping;
  private volatile boolean ruleFailureLogged;

  LimitingInterceptor(List<PathLimiter> limiters, RateRules rules, SluiceSettings settings) {
    this.limiters = List.copyOf(limiters);
    this.rules = rules;
    this.settings = settings;
  }

  void stopAdmitting() {
    stopping = true;
  }

  @Override
  // the callback answers every outcome itself; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String path = "/" + call.getMethodDescriptor().getFullMethodName();
    PathLimiter limiter = PathLimiter.first(limiters, path);
    boolean ruled = rules != null && rules.guards(METHOD, path);
    if (limiter == null && !ruled) {
      return next.startCall(call, headers);
    }
    if (stopping) {
      return refuse(call, Answer.shuttingDown(RetryAfter.SHUTDOWN_SECONDS));
    }
    CallInfo info = null;
    if (ruled) {
      // rules first: a call a rule refuses never takes a place in a queue
      info = info(path, headers, call);
      RuleDecision refusal = ruleRefusal(info);
      if (refusal != null) {
        return refuse(call, Answer.rateLimited(refusal));
      }
      if (limiter == null) {
        return next.startCall(call, headers);
      }
    }
    Context context = Context.current();
    long budget = budgetNanos(context.getDeadline());
    if (budget == 0) {
      return refuse(call, Answer.deadlinePassed(limiter));
    }
    // the common case, a free permit and nobody waiting: no caller, no future
    Permit now = limiter.limiter().acquireIfFree();
    if (now != null) {
      return HeldPermit.start(call, headers, next, now);
    }
    Caller caller = limiter.callers().needed()
        ? limiter
            .callers()
            .of(new CallInfo(
                path, headers, call, settings.accountHeader(), settings.deviceHeader()))
        : Caller.DEFAULT;
    boolean ownDeadline = false;
    if (budget > 0) {
      caller = caller.withTimeout(Duration.ofNanos(budget)); // the shorter of it and queue-timeout
      ownDeadline = budget < limiter.limiter().spec().queueTimeout().toNanos();
    }
    CompletableFuture<Permit> acquired = limiter.limiter().acquire(caller);
    if (acquired.isDone() && !acquired.isCompletedExceptionally()) {
      return HeldPermit.start(call, headers, next, acquired.join());
    }
    QueuedCall<ReqT, RespT> queued = new QueuedCall<>(call, headers, next, context, acquired);
    Caller asked = caller;
    boolean deadlineBinds = ownDeadline;
    acquired.whenComplete((permit, failure) -> {
      if (failure == null) {
        queued.admitted(permit);
      } else {
        Answer answer = answer(failure, limiter, asked, deadlineBinds);
        if (answer != null) {
          queued.refused(answer);
        }
      }
    });
    return queued;
  }

  private CallInfo info(String path, Metadata headers, ServerCall<?, ?> call) {
    return new CallInfo(path, headers, call, settings.accountHeader(), settings.deviceHeader());
  }

  /**
   * The decision of the rule that refuses the call, or null when every rule admits it. Fails open,
   * as the plugin does: a broken rule must not refuse every call.
   */
  private RuleDecision ruleRefusal(CallInfo info) {
    try {
      RuleOutcomes outcomes = new RuleOutcomes();
      if (!rules.checkNow(info, outcomes) || outcomes.allowed()) {
        return null; // local rules always decide now (global ones are refused at build)
      }
      return outcomes.decision(outcomes.rejectedIndex());
    } catch (RuntimeException e) {
      if (!ruleFailureLogged) {
        ruleFailureLogged = true;
        log.log(System.Logger.Level.WARNING, "rate rules failed; call let through", e);
      }
      return null;
    }
  }

  /**
   * What is left of the caller's deadline in nanoseconds: -1 when it set none, 0 when it is spent.
   */
  private static long budgetNanos(Deadline deadline) {
    if (deadline == null) {
      return -1;
    }
    return Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
  }

  /** The answer to a failed acquire; null when the call left the queue itself (its cancel). */
  private static Answer answer(
      Throwable failure, PathLimiter limiter, Caller caller, boolean ownDeadline) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
    if (cause instanceof CancellationException) {
      return null;
    }
    if (cause instanceof ConcurrencyRejectedException e) {
      return Answer.fromLimiter(e, limiter, caller, ownDeadline);
    }
    return new Answer(
        Status.UNKNOWN
            .withDescription("limiter '" + limiter.name() + "' failed")
            .withCause(cause),
        0);
  }

  private static <ReqT> ServerCall.Listener<ReqT> refuse(ServerCall<ReqT, ?> call, Answer answer) {
    answer.close(call);
    return new ServerCall.Listener<>() {};
  }
}
