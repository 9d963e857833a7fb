package dev.sluice.demo;

import io.grpc.CallOptions;
import io.grpc.ClientInterceptors;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.MetadataUtils;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** A real grpc-java client over Netty for the demo's gRPC door, with the method declared by hand. */
final class GrpcClient implements AutoCloseable {

  private final ManagedChannel channel;

  GrpcClient(int port) {
    channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", port, InsecureChannelCredentials.create())
        .build();
  }

  /** A transcode call of this JSON with these metadata pairs (name, value, ...). */
  Future<String> transcode(String json, String... metadata) {
    return transcode(json, CallOptions.DEFAULT, metadata);
  }

  /** The same with a deadline this far away. */
  Future<String> transcode(String json, Duration deadline, String... metadata) {
    return transcode(
        json,
        CallOptions.DEFAULT.withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS),
        metadata);
  }

  private Future<String> transcode(String json, CallOptions options, String... metadata) {
    Metadata headers = new Metadata();
    for (int i = 0; i < metadata.length; i += 2) {
      headers.put(Metadata.Key.of(metadata[i], Metadata.ASCII_STRING_MARSHALLER), metadata[i + 1]);
    }
    return ClientCalls.futureUnaryCall(
        ClientInterceptors.intercept(channel, MetadataUtils.newAttachHeadersInterceptor(headers))
            .newCall(TranscodeRpc.TRANSCODE, options),
        json);
  }

  /** The status a call ended with (OK when it succeeded). */
  static Status statusOf(Future<?> call) throws InterruptedException {
    try {
      call.get(30, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    } catch (TimeoutException e) {
      throw new AssertionError("the call was not answered", e);
    }
  }

  /** The trailers a failed call carried. */
  static Metadata trailersOf(Future<?> call) throws InterruptedException {
    try {
      call.get(30, TimeUnit.SECONDS);
      return new Metadata();
    } catch (ExecutionException e) {
      Metadata trailers = Status.trailersFromThrowable(e.getCause());
      return trailers == null ? new Metadata() : trailers;
    } catch (TimeoutException e) {
      throw new AssertionError("the call was not answered", e);
    }
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
