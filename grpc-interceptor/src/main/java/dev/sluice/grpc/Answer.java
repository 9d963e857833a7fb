package dev.sluice.grpc;

import dev.sluice.answer.RefusalText;
import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.config.DoorLimiter;
import dev.sluice.rules.RuleDecision;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.Status;

/**
 * The status a call gets instead of its handler (the module README, "Statuses"): the reason's tag
 * and the sentence of {@link RefusalText} in the description, and {@code grpc-retry-pushback-ms}
 * (the Retry-After figure of the HTTP door, in milliseconds) where a retry later may succeed.
 */
record Answer(Status status, long pushbackMillis) {

  /** The trailer grpc-java's retry policy reads: wait this long before the next attempt. */
  static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  /** A limiter refused the call. */
  static Answer fromLimiter(
      ConcurrencyRejectedException e, DoorLimiter limiter, Caller caller, boolean ownDeadline) {
    String why = RefusalText.reasonId(e.reason());
    long pushback = RetryAfter.seconds(e.retryAfterNanos()) * 1000;
    return switch (e.outcome()) {
      case QUEUE_FULL -> {
        if (e.reason() == RejectionReason.PREDICTED_WAIT && ownDeadline) {
          // the caller's deadline, not the limiter's timeout, is what cannot be met: a retry
          // with the same deadline meets the same queue
          yield new Answer(
              Status.DEADLINE_EXCEEDED.withDescription(
                  "deadline_exceeded: The call's deadline is sooner than the predicted wait for"
                      + " limiter '" + e.limiterName() + "'."),
              0);
        }
        String detail = e.reason() == RejectionReason.KEY_CAP
            ? RefusalText.keyCap(e, caller.key(), limiter.config().queueKey())
            : RefusalText.queueFull(e);
        yield new Answer(Status.RESOURCE_EXHAUSTED.withDescription(why + ": " + detail), pushback);
      }
      case QUEUE_TIMEOUT ->
        new Answer(
            Status.DEADLINE_EXCEEDED.withDescription(
                why + ": " + RefusalText.queueTimeout(e.limiterName())),
            0);
      case CANCELLED ->
        new Answer(
            Status.CANCELLED.withDescription(
                why + ": The client cancelled the call while it waited in the queue."),
            0);
      default ->
        shuttingDown(
            e.retryAfterNanos() > 0
                ? RetryAfter.seconds(e.retryAfterNanos())
                : RetryAfter.SHUTDOWN_SECONDS);
    };
  }

  /** The call's own deadline was spent when it arrived. */
  static Answer deadlinePassed(DoorLimiter limiter) {
    return new Answer(
        Status.DEADLINE_EXCEEDED.withDescription(
            "deadline_exceeded: " + RefusalText.deadlinePassed("limiter '" + limiter.name() + "'")),
        0);
  }

  /** A rate rule refused the call: its name and what it allows, and when to come back. */
  static Answer rateLimited(RuleDecision rejectedBy) {
    return new Answer(
        Status.RESOURCE_EXHAUSTED.withDescription(
            RefusalText.RATE_LIMITED + ": " + RefusalText.rateLimited(rejectedBy)),
        RetryAfter.seconds(rejectedBy.decision().retryAfterNanos()) * 1000);
  }

  static Answer shuttingDown(long retryAfterSeconds) {
    return new Answer(
        Status.UNAVAILABLE.withDescription(
            RefusalText.SHUTTING_DOWN + ": " + RefusalText.shuttingDown()),
        Math.max(1, retryAfterSeconds) * 1000);
  }

  /** Ends {@code call} with this answer. */
  void close(ServerCall<?, ?> call) {
    Metadata trailers = new Metadata();
    if (pushbackMillis > 0) {
      trailers.put(PUSHBACK, Long.toString(pushbackMillis));
    }
    call.close(status, trailers);
  }
}
