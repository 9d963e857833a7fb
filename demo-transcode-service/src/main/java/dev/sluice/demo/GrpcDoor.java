package dev.sluice.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.grpc.SluiceGrpc;
import io.grpc.Context;
import io.grpc.Contexts;
import io.grpc.Grpc;
import io.grpc.InsecureServerCredentials;
import io.grpc.Metadata;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC door beside the HTTP one ({@code demo.grpc.port}): {@link TranscodeRpc#TRANSCODE} runs
 * the {@code frames} engine's transcode job, behind Sluice's gRPC interceptor over the very limiter
 * that guards {@code POST /api/transcode} ({@link SluiceGrpc.Builder#shared}), or unguarded when
 * that endpoint is too ({@code sluice.enabled=false}, a limiter peer). A call waiting for its permit
 * is not started and holds no thread; its request is read, and checked, once it is admitted.
 */
final class GrpcDoor implements AutoCloseable {

  /** The methods the shared limiter guards: every method of the service. */
  static final String METHODS = "/" + TranscodeRpc.SERVICE + "/*";

  private static final Context.Key<Long> RECEIVED = Context.key("demo.grpc.received");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Server server;
  private final JobEndpoints jobs;
  private final SluiceGrpc sluice; // null: unguarded

  private GrpcDoor(int port, JobEndpoints jobs, SluiceGrpc sluice) {
    this.jobs = jobs;
    this.sluice = sluice;
    ServerServiceDefinition transcoder = ServerServiceDefinition.builder(TranscodeRpc.SERVICE)
        .addMethod(TranscodeRpc.TRANSCODE, ServerCalls.asyncUnaryCall(this::transcode))
        .build();
    ServerServiceDefinition guarded = sluice == null ? transcoder : sluice.wrap(transcoder);
    // the arrival stamp goes in front of Sluice, so queuedMillis includes the wait for a permit
    this.server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(guarded, new Arrival()))
        .build();
  }

  /**
   * Starts the door on {@code port}.
   *
   * @param sluice the interceptor over the HTTP door's transcode limiter, or null to run calls
   *     unguarded; {@link #close} shuts it down
   */
  static GrpcDoor start(int port, JobEndpoints jobs, SluiceGrpc sluice) {
    GrpcDoor door = new GrpcDoor(port, jobs, sluice);
    try {
      door.server.start();
    } catch (IOException e) {
      if (sluice != null) {
        sluice.close();
      }
      throw new UncheckedIOException("demo.grpc.port " + port + ": cannot listen", e);
    }
    return door;
  }

  int port() {
    return server.getPort();
  }

  /** Whether calls wait for the transcode limiter's permits. */
  boolean guarded() {
    return sluice != null;
  }

  /**
   * An admitted call (or any, unguarded): checks the request as the HTTP endpoint checks its query,
   * then runs the job; the interceptor holds the permit until the call is over.
   */
  private void transcode(String request, StreamObserver<String> response) {
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
    Long stamped = RECEIVED.get();
    long received = stamped == null ? System.nanoTime() : stamped;
    int[] job;
    try {
      job = parse(request);
    } catch (BadRequest e) {
      fail(call, Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    answer(call, jobs.run("transcode", received, job[0], job[1]));
  }

  /** {@code {cpuMillis, waitMillis}} of a request, checked as the HTTP endpoint checks its query. */
  private int[] parse(String request) {
    JsonNode body;
    try {
      body = JSON.readTree(request);
    } catch (JsonProcessingException e) {
      body = null;
    }
    if (body == null || !body.isObject()) {
      throw new BadRequest(
          "request", request, "must be a JSON object such as {\"cpuMillis\": 200}");
    }
    return jobs.check(text(body, JobMillis.CPU.parameter), text(body, JobMillis.WAIT.parameter));
  }

  private static String text(JsonNode body, String field) {
    JsonNode value = body.get(field);
    return value == null ? null : value.asText();
  }

  /** Answers the job's result; closing the call gives the permit back. */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback answers every outcome itself
  private static void answer(
      ServerCallStreamObserver<String> call, CompletableFuture<JobResult> job) {
    job.whenComplete((result, error) -> {
      try {
        if (error != null) {
          fail(
              call,
              Status.INTERNAL
                  .withDescription("the job failed")
                  .withCause(error)
                  .asRuntimeException());
        } else {
          call.onNext(JSON.writeValueAsString(result));
          call.onCompleted();
        }
      } catch (JsonProcessingException | RuntimeException e) {
        // cancelled meanwhile: nobody reads the answer
      }
    });
  }

  private static void fail(ServerCallStreamObserver<String> call, StatusRuntimeException status) {
    try {
      call.onError(status);
    } catch (RuntimeException cancelled) {
      // the client left first
    }
  }

  /**
   * Stops taking calls and waits up to {@code grace} for those still open. The door stops
   * admitting first (its queued calls and new ones get {@code UNAVAILABLE}); the limiter is the
   * plugin's, which its own drain has shut down by then.
   */
  void close(Duration grace) {
    if (sluice != null) {
      sluice.shutdown();
    }
    server.shutdown();
    try {
      if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    } finally {
      if (sluice != null) {
        sluice.close();
      }
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /** Stamps when a call reached the door, before it waits for a permit. */
  private static final class Arrival implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      Context context = Context.current().withValue(RECEIVED, System.nanoTime());
      return Contexts.interceptCall(context, call, headers, next);
    }
  }
}
