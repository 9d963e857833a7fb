package dev.sluice.demo;

import dev.sluice.answer.RefusalText;
import dev.sluice.answer.RetryAfter;
import dev.sluice.concurrency.Caller;
import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.ConcurrencyRejectedException;
import dev.sluice.concurrency.Permit;
import dev.sluice.concurrency.RejectionReason;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.QueueCallers;
import io.grpc.Deadline;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.time.Duration;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;

/**
 * The HTTP door's transcode limiter, asked for a gRPC call's permit: the same instance the Javalin
 * plugin built, so a call and an HTTP request wait in one queue for the same permits. A call queues
 * under its {@code x-host-id} and in its {@code x-priority} class as a request does under its
 * headers; its gRPC deadline shortens the wait. Refusals are the statuses of Sluice's gRPC
 * interceptor: {@code RESOURCE_EXHAUSTED} with {@code grpc-retry-pushback-ms} when full, {@code
 * DEADLINE_EXCEEDED} past the queue timeout, {@code UNAVAILABLE} with a pushback when stopping.
 */
final class GrpcAdmission {

  /** The trailer grpc-java's retry policy reads: wait this long before the next attempt. */
  static final Metadata.Key<String> PUSHBACK =
      Metadata.Key.of("grpc-retry-pushback-ms", Metadata.ASCII_STRING_MARSHALLER);

  private final ConcurrencyLimiter limiter;
  private final QueueCallers callers;
  private final String queueKey;

  GrpcAdmission(ConcurrencyLimiter limiter, LimiterConfig config) {
    this.limiter = limiter;
    this.callers = new QueueCallers(config.queue());
    this.queueKey = config.queueKey();
  }

  String name() {
    return limiter.name();
  }

  /**
   * Waits for a permit, holding no thread; a call whose deadline is spent is refused at once.
   *
   * @param deadline the call's gRPC deadline, or null
   */
  Ticket acquire(Metadata headers, String peer, Deadline deadline) {
    Caller caller = callers.needed() ? callers.of(new CallMetadata(headers, peer)) : Caller.DEFAULT;
    boolean ownDeadline = false;
    if (deadline != null) {
      long budget = deadline.timeRemaining(TimeUnit.NANOSECONDS);
      if (budget <= 0) {
        return new Ticket(
            CompletableFuture.failedFuture(Status.DEADLINE_EXCEEDED
                .withDescription(
                    "deadline_exceeded: " + RefusalText.deadlinePassed("limiter '" + name() + "'"))
                .asRuntimeException()),
            caller,
            true);
      }
      caller = caller.withTimeout(Duration.ofNanos(budget)); // the shorter of it and queue-timeout
      ownDeadline = budget < limiter.spec().queueTimeout().toNanos();
    }
    return new Ticket(limiter.acquire(caller), caller, ownDeadline);
  }

  /**
   * One call's wait for a permit.
   *
   * @param permit completes with the permit, or fails with the limiter's refusal
   * @param caller the key and class it waits under
   * @param ownDeadline whether the call's deadline, not the queue timeout, bounds the wait
   */
  record Ticket(CompletableFuture<Permit> permit, Caller caller, boolean ownDeadline) {}

  /**
   * The status for a failed wait, or null when the call left the queue itself (its cancel or its
   * deadline): nobody is there to read an answer.
   */
  StatusRuntimeException refusal(Throwable failure, Ticket ticket) {
    Throwable cause = failure instanceof CompletionException && failure.getCause() != null
        ? failure.getCause()
        : failure;
    if (cause instanceof CancellationException) {
      return null;
    }
    if (cause instanceof StatusRuntimeException status) {
      return status;
    }
    if (!(cause instanceof ConcurrencyRejectedException e)) {
      return Status.UNKNOWN
          .withDescription("limiter '" + name() + "' failed")
          .withCause(cause)
          .asRuntimeException();
    }
    String why = RefusalText.reasonId(e.reason());
    long pushback = RetryAfter.seconds(e.retryAfterNanos()) * 1000;
    return switch (e.outcome()) {
      case QUEUE_FULL -> {
        if (e.reason() == RejectionReason.PREDICTED_WAIT && ticket.ownDeadline()) {
          // the call's deadline, not the limiter's timeout, cannot be met: a retry with the same
          // deadline meets the same queue, so no pushback
          yield Status.DEADLINE_EXCEEDED
              .withDescription("deadline_exceeded: The call's deadline is sooner than the"
                  + " predicted wait for limiter '" + e.limiterName() + "'.")
              .asRuntimeException();
        }
        String detail = e.reason() == RejectionReason.KEY_CAP
            ? RefusalText.keyCap(e, ticket.caller().key(), queueKey)
            : RefusalText.queueFull(e);
        yield withPushback(
            Status.RESOURCE_EXHAUSTED.withDescription(why + ": " + detail), pushback);
      }
      case QUEUE_TIMEOUT ->
        Status.DEADLINE_EXCEEDED
            .withDescription(why + ": " + RefusalText.queueTimeout(e.limiterName()))
            .asRuntimeException();
      case CANCELLED -> null;
      default ->
        withPushback(
            Status.UNAVAILABLE.withDescription(
                RefusalText.SHUTTING_DOWN + ": " + RefusalText.shuttingDown()),
            Math.max(1, e.retryAfterNanos() > 0 ? pushback / 1000 : RetryAfter.SHUTDOWN_SECONDS)
                * 1000);
    };
  }

  private static StatusRuntimeException withPushback(Status status, long millis) {
    Metadata trailers = new Metadata();
    if (millis > 0) {
      trailers.put(PUSHBACK, Long.toString(millis));
    }
    return status.asRuntimeException(trailers);
  }
}
