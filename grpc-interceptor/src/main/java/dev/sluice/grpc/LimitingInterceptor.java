package dev.sluice.grpc;

import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.DoorLimiter;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.AdmissionFlow;
import dev.sluice.http.AdmissionFlow.Stopping;
import dev.sluice.http.Passage;
import dev.sluice.request.RequestInfo;
import dev.sluice.rules.RateRules;
import dev.sluice.rules.RuleOutcomes;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * Asks the limiter that guards a call's method for a permit before the call starts, through the
 * {@link AdmissionFlow} every door shares (stopping, then the rate rules, then the limiter; a call
 * that no limiter or rule guards goes by, even while stopping): admitted at once, the handler starts now; queued, the call waits as a {@link QueuedCall} (no thread, no
 * message read) and starts on the limiter's executor when its turn comes; refused, it is closed
 * with the {@link Answer} of the contract. The caller's gRPC deadline is the call's deadline: it
 * shortens the wait, and with {@code reject-early} a call whose deadline is sooner than the
 * predicted wait is answered {@code DEADLINE_EXCEEDED} at once.
 */
final class LimitingInterceptor implements ServerInterceptor {

  /** Every gRPC call is a POST on the wire: what a rule's {@code method} is compared with. */
  static final String METHOD = "POST";

  private static final System.Logger log = System.getLogger(LimitingInterceptor.class.getName());

  private final AdmissionFlow<CallInfo> flow;
  private final String accountHeader;
  private final String deviceHeader;
  private final Set<PathLimiter> shared; // limiters another door owns (compared by identity)
  private final SharedCalls sharedCalls;

  /**
   * @param limiters every limiter, in the order they are tried
   * @param shared those of {@code limiters} another door owns: this door counts its own calls on
   *     them and takes its waiting calls out of their queues when it stops
   */
  LimitingInterceptor(
      List<PathLimiter> limiters,
      Set<PathLimiter> shared,
      RateRules rules,
      SluiceSettings settings) {
    this.flow = new AdmissionFlow<>(limiters, rules, new Calls(), Stopping.REFUSES_GUARDED);
    this.accountHeader = settings.accountHeader();
    this.deviceHeader = settings.deviceHeader();
    this.shared = Set.copyOf(shared);
    this.sharedCalls = new SharedCalls();
  }

  /** New guarded calls are refused; calls waiting on a shared limiter leave its queue, refused. */
  void stopAdmitting() {
    flow.stopAdmitting();
    sharedCalls.stop();
  }

  /** Waits until none of this door's calls holds a shared limiter's permit. */
  boolean awaitSharedDrained(long deadlineNanos) throws InterruptedException {
    return sharedCalls.awaitNone(deadlineNanos);
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String path = "/" + call.getMethodDescriptor().getFullMethodName();
    Passage passage = new Passage();
    CallInfo info = new CallInfo(path, headers, call, accountHeader, deviceHeader);
    return switch (flow.admit(info, METHOD, path, passage)) {
      case PASS -> next.startCall(call, headers);
      case ADMITTED ->
        HeldPermit.start(call, headers, next, held(passage.limiter(), passage.permit()));
      case WAITING -> queue(call, headers, next, passage);
      case SHUTTING_DOWN -> refuse(call, Answer.shuttingDown(RetryAfter.SHUTDOWN_SECONDS));
      case RATE_LIMITED -> {
        RuleOutcomes outcomes = passage.outcomes();
        yield refuse(call, Answer.rateLimited(outcomes.decision(outcomes.rejectedIndex())));
      }
      case DEADLINE_SPENT -> refuse(call, Answer.deadlinePassed(passage.limiter()));
      case REFUSED -> {
        Answer answer =
            answer(passage.failure(), passage.limiter(), passage.caller(), passage.deadlineBinds());
        // null only for a cancel, which a call that never waited cannot have done
        yield answer == null ? new ServerCall.Listener<>() {} : refuse(call, answer);
      }
      // LocalDoor refuses what leads to these: rules in a shared store, shaper rules, a cost
      case RULES_PENDING, SHAPED, BAD_REQUEST ->
        throw new IllegalStateException(
            "the gRPC interceptor counts rules locally, holds no call back, prices none");
    };
  }

  /**
   * The call waits, not started, as a {@link QueuedCall}: started in its own context when its
   * permit comes, closed with the answer when the limiter refuses it later.
   */
  // the callback answers every outcome itself; the future it returns is not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private <ReqT, RespT> ServerCall.Listener<ReqT> queue(
      ServerCall<ReqT, RespT> call,
      Metadata headers,
      ServerCallHandler<ReqT, RespT> next,
      Passage passage) {
    CompletableFuture<Permit> acquired = passage.waiting();
    QueuedCall<ReqT, RespT> queued =
        new QueuedCall<>(call, headers, next, Context.current(), acquired);
    DoorLimiter limiter = passage.limiter();
    Caller asked = passage.caller();
    boolean deadlineBinds = passage.deadlineBinds();
    boolean isShared = shared.contains(limiter);
    if (isShared) {
      sharedCalls.waiting(queued); // before the callback, which takes it out again
    }
    acquired.whenComplete((permit, failure) -> {
      if (isShared) {
        sharedCalls.decided(queued);
      }
      if (failure == null) {
        queued.admitted(held(limiter, permit));
      } else {
        Answer answer = answer(failure, limiter, asked, deadlineBinds);
        if (answer != null) {
          queued.refused(answer);
        }
      }
    });
    return queued;
  }

  /** {@code permit}, counted among this door's calls when {@code limiter} is shared. */
  private Permit held(DoorLimiter limiter, Permit permit) {
    return shared.contains(limiter) ? sharedCalls.running(permit) : permit;
  }

  /** What the flow asks of a call. */
  private static final class Calls implements AdmissionFlow.Requests<CallInfo> {
    private volatile boolean ruleFailureLogged;

    @Override
    public RequestInfo info(CallInfo call, String path) {
      return call;
    }

    /**
     * What is left of the caller's deadline in nanoseconds: none when it set none, 0 when it is
     * spent.
     */
    @Override
    public long budgetNanos(CallInfo call, PathLimiter limiter) {
      Deadline deadline = Context.current().getDeadline();
      if (deadline == null) {
        return AdmissionFlow.NO_DEADLINE;
      }
      return Math.max(0, deadline.timeRemaining(TimeUnit.NANOSECONDS));
    }

    /** Fails open, as the plugin does: a broken rule must not refuse every call. */
    @Override
    public void rulesFailed(RuntimeException failure) {
      if (!ruleFailureLogged) {
        ruleFailureLogged = true;
        log.log(System.Logger.Level.WARNING, "rate rules failed; call let through", failure);
      }
    }
  }

  /** The answer to a failed acquire; null when the call left the queue itself (its cancel). */
  private static Answer answer(
      Throwable failure, DoorLimiter limiter, Caller caller, boolean ownDeadline) {
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
