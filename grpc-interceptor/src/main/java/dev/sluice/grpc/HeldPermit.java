package dev.sluice.grpc;

import dev.sluice.concurrency.Permit;
import io.grpc.ForwardingServerCallListener;
import io.grpc.ServerCall;

/**
 * An admitted call's listener: the call holds its permit until it is over, completed or cancelled
 * (a streaming call, all its messages); the permit's release is idempotent, so both ends may try.
 */
final class HeldPermit<ReqT>
    extends ForwardingServerCallListener.SimpleForwardingServerCallListener<ReqT> {

  private final Permit permit;

  private HeldPermit(ServerCall.Listener<ReqT> delegate, Permit permit) {
    super(delegate);
    this.permit = permit;
  }

  /** Starts the call's handler holding {@code permit}; releases it if the handler fails to start. */
  static <ReqT, RespT> ServerCall.Listener<ReqT> start(
      ServerCall<ReqT, RespT> call,
      io.grpc.Metadata headers,
      io.grpc.ServerCallHandler<ReqT, RespT> next,
      Permit permit) {
    ServerCall.Listener<ReqT> started;
    try {
      started = next.startCall(call, headers);
    } catch (RuntimeException | Error e) {
      permit.release();
      throw e;
    }
    return new HeldPermit<>(started, permit);
  }

  @Override
  public void onComplete() {
    try {
      super.onComplete();
    } finally {
      permit.release();
    }
  }

  @Override
  public void onCancel() {
    try {
      super.onCancel();
    } finally {
      permit.release();
    }
  }
}
