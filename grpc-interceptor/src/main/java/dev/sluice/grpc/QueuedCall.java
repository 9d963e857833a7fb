package dev.sluice.grpc;

import dev.sluice.concurrency.Permit;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.Status;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;

/**
 * The listener of a call that waits in a limiter's queue. The call is not started: its handler is
 * not invoked and nothing asks the transport for a message ({@code request(n)} is the handler's),
 * so a queued call holds no thread and reads no body. What the transport reports meanwhile (ready,
 * half-close) is kept and handed over in order once the handler starts; a cancel leaves the queue at
 * once.
 *
 * <p>Events reach the handler through a queue drained outside the lock, as grpc-java's own delayed
 * listeners do: the handler (a unary method runs inside {@code onHalfClose}) must not run under a
 * lock that the transport's cancel would then wait on.
 */
final class QueuedCall<ReqT, RespT> extends ServerCall.Listener<ReqT> {

  private final ServerCall<ReqT, RespT> call;
  private final Metadata headers;
  private final ServerCallHandler<ReqT, RespT> next;
  private final Context context;
  private final CompletableFuture<Permit> waiting;

  // guarded by this
  private List<Consumer<ServerCall.Listener<ReqT>>> pending = new ArrayList<>();
  private boolean cancelled; // the client left while queued
  private boolean decided; // admitted or refused: no longer in the queue
  private ServerCall.Listener<ReqT> delegate; // set when started
  // set once every kept event reached the delegate: later events go straight to it
  private volatile boolean passThrough;

  QueuedCall(
      ServerCall<ReqT, RespT> call,
      Metadata headers,
      ServerCallHandler<ReqT, RespT> next,
      Context context,
      CompletableFuture<Permit> waiting) {
    this.call = call;
    this.headers = headers;
    this.next = next;
    this.context = context;
    this.waiting = waiting;
  }

  /** The limiter granted the permit: starts the handler in the call's context, then replays. */
  void admitted(Permit permit) {
    synchronized (this) {
      if (cancelled) {
        // the grant raced the client's cancel: the permit goes back, nobody is started
        permit.release();
        return;
      }
      decided = true;
    }
    ServerCall.Listener<ReqT> started;
    Context previous = context.attach();
    try {
      started = HeldPermit.start(call, headers, next, permit);
    } catch (RuntimeException e) {
      call.close(Status.fromThrowable(e), new Metadata());
      return;
    } finally {
      context.detach(previous);
    }
    synchronized (this) {
      delegate = started;
    }
    drain();
  }

  /** The limiter refused the call after it queued (timeout, displaced, shutdown...). */
  void refused(Answer answer) {
    answerUnlessCancelled(answer);
  }

  /**
   * The door stops admitting while the call waits on a limiter it does not own (which goes on):
   * the call leaves the queue and gets {@code answer}, unless the limiter decided it first.
   */
  void stop(Answer answer) {
    if (!waiting.cancel(false)) {
      return; // granted, refused or cancelled already: that outcome stands
    }
    answerUnlessCancelled(answer);
  }

  /**
   * Takes the call out of the queue with {@code answer}, its kept events dropped, unless the
   * client left first (nobody reads an answer then).
   */
  private void answerUnlessCancelled(Answer answer) {
    synchronized (this) {
      if (cancelled) {
        return;
      }
      decided = true;
      pending = null;
    }
    answer.close(call);
  }

  private void drain() {
    while (true) {
      List<Consumer<ServerCall.Listener<ReqT>>> batch;
      synchronized (this) {
        if (pending.isEmpty()) {
          pending = null;
          passThrough = true;
          return;
        }
        batch = pending;
        pending = new ArrayList<>();
      }
      Context previous = context.attach();
      try {
        batch.forEach(event -> event.accept(delegate));
      } finally {
        context.detach(previous);
      }
    }
  }

  /** Hands {@code event} to the handler, now or once started; drops it if the call was refused. */
  private void deliver(Consumer<ServerCall.Listener<ReqT>> event) {
    if (!passThrough) {
      synchronized (this) {
        if (!passThrough) {
          if (pending != null) {
            pending.add(event);
          }
          return;
        }
      }
    }
    event.accept(delegate);
  }

  @Override
  public void onMessage(ReqT message) {
    deliver(l -> l.onMessage(message));
  }

  @Override
  public void onHalfClose() {
    deliver(ServerCall.Listener::onHalfClose);
  }

  @Override
  public void onReady() {
    deliver(ServerCall.Listener::onReady);
  }

  @Override
  public void onComplete() {
    deliver(ServerCall.Listener::onComplete);
  }

  @Override
  public void onCancel() {
    boolean leaveQueue;
    synchronized (this) {
      leaveQueue = !decided;
      if (leaveQueue) {
        cancelled = true;
        pending = null;
      }
    }
    if (leaveQueue) {
      // the limiter counts the waiter as cancelled and gives its place to the next
      waiting.cancel(false);
      return;
    }
    deliver(ServerCall.Listener::onCancel);
  }
}
