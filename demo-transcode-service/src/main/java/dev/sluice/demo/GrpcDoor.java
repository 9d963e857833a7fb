package dev.sluice.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.concurrency.Permit;
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
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The gRPC door beside the HTTP one ({@code demo.grpc.port}): {@link TranscodeRpc#TRANSCODE} runs
 * the {@code frames} engine's transcode job, behind the very limiter that guards {@code POST
 * /api/transcode} (see {@link GrpcAdmission}), or unguarded when that endpoint is too ({@code
 * sluice.enabled=false}, a limiter peer). A call waiting for its permit holds no thread.
 */
final class GrpcDoor implements AutoCloseable {

  private static final Context.Key<Metadata> HEADERS = Context.key("demo.grpc.headers");
  private static final Context.Key<String> PEER = Context.key("demo.grpc.peer");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Server server;
  private final JobEndpoints jobs;
  private final GrpcAdmission admission; // null: unguarded

  private GrpcDoor(int port, JobEndpoints jobs, GrpcAdmission admission) {
    this.jobs = jobs;
    this.admission = admission;
    ServerServiceDefinition transcoder = ServerServiceDefinition.builder(TranscodeRpc.SERVICE)
        .addMethod(TranscodeRpc.TRANSCODE, ServerCalls.asyncUnaryCall(this::transcode))
        .build();
    this.server = Grpc.newServerBuilderForPort(port, InsecureServerCredentials.create())
        .addService(ServerInterceptors.intercept(transcoder, new CallerOf()))
        .build();
  }

  /**
   * Starts the door on {@code port}.
   *
   * @param admission the HTTP door's transcode limiter, or null to run calls unguarded
   */
  static GrpcDoor start(int port, JobEndpoints jobs, GrpcAdmission admission) {
    GrpcDoor door = new GrpcDoor(port, jobs, admission);
    try {
      door.server.start();
    } catch (IOException e) {
      throw new UncheckedIOException("demo.grpc.port " + port + ": cannot listen", e);
    }
    return door;
  }

  int port() {
    return server.getPort();
  }

  /** Whether calls wait for the transcode limiter's permits. */
  boolean guarded() {
    return admission != null;
  }

  // the callbacks answer every outcome themselves; the futures they return are not needed
  @SuppressWarnings("FutureReturnValueIgnored")
  private void transcode(String request, StreamObserver<String> response) {
    long received = System.nanoTime();
    ServerCallStreamObserver<String> call = (ServerCallStreamObserver<String>) response;
    int[] job;
    try {
      job = parse(request);
    } catch (BadRequest e) {
      // refused before the limiter, as the HTTP door's 400: no queue place, no permit
      fail(call, Status.INVALID_ARGUMENT.withDescription(e.getMessage()).asRuntimeException());
      return;
    }
    if (admission == null) {
      answer(call, jobs.run("transcode", received, job[0], job[1]), null);
      return;
    }
    GrpcAdmission.Ticket ticket =
        admission.acquire(HEADERS.get(), PEER.get(), Context.current().getDeadline());
    // the client left or its deadline passed: the limiter counts the waiter cancelled and gives
    // its place to the next at once
    call.setOnCancelHandler(() -> ticket.permit().cancel(false));
    ticket.permit().whenComplete((permit, failure) -> {
      if (failure != null) {
        StatusRuntimeException refused = admission.refusal(failure, ticket);
        if (refused != null) {
          fail(call, refused);
        }
      } else if (call.isCancelled()) {
        permit.release(); // the grant raced the cancel: nobody waits for the job
      } else {
        answer(call, jobs.run("transcode", received, job[0], job[1]), permit);
      }
    });
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

  /** Answers the job's result, then gives the permit back (the call holds it to its end). */
  @SuppressWarnings("FutureReturnValueIgnored") // the callback answers every outcome itself
  private static void answer(
      ServerCallStreamObserver<String> call, CompletableFuture<JobResult> job, Permit permit) {
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
      } finally {
        if (permit != null) {
          permit.release();
        }
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
   * Stops taking calls and waits up to {@code grace} for those still open; the limiter's own
   * shutdown (the plugin's drain) has answered the queued ones {@code UNAVAILABLE} by then.
   */
  void close(Duration grace) {
    server.shutdown();
    try {
      if (!server.awaitTermination(grace.toMillis(), TimeUnit.MILLISECONDS)) {
        server.shutdownNow();
      }
    } catch (InterruptedException e) {
      server.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    close(Duration.ofSeconds(5));
  }

  /** Keeps a call's metadata and peer address for its handler. */
  private static final class CallerOf implements ServerInterceptor {
    @Override
    public <Q, R> ServerCall.Listener<Q> interceptCall(
        ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
      SocketAddress remote = call.getAttributes().get(Grpc.TRANSPORT_ATTR_REMOTE_ADDR);
      String peer = remote instanceof InetSocketAddress inet && inet.getAddress() != null
          ? inet.getAddress().getHostAddress()
          : String.valueOf(remote);
      Context context = Context.current().withValue(HEADERS, headers).withValue(PEER, peer);
      return Contexts.interceptCall(context, call, headers, next);
    }
  }
}
