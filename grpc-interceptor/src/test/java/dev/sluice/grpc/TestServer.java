package dev.sluice.grpc;

import dev.sluice.config.SluiceProperties;
import io.grpc.CallOptions;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.InsecureServerCredentials;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.UnaryOperator;

/**
 * A real grpc-java server over Netty on a free port, with a tiny service defined without protoc
 * (text messages) and Sluice in front of it, and a real client channel to it.
 *
 * <ul>
 *   <li>{@code test.Work/Hold}: unary; the handler keeps the call open until the test {@linkplain
 *       #finishOne() finishes} it (no thread held while it runs)
 *   <li>{@code test.Work/Echo}: unary, answers at once
 *   <li>{@code test.Work/Stream}: server streaming; sends one message, then stays open until
 *       finished
 *   <li>{@code test.Work/Run}: unary; runs for the milliseconds the request names, on a timer (no
 *       thread held), counting the handlers running at once (a cancelled one stops counting when
 *       it is cancelled, the moment its permit comes back)
 *   <li>{@code test.Open/Ping}: not limited
 * </ul>
 */
final class TestServer implements AutoCloseable {

  static final MethodDescriptor.Marshaller<String> TEXT = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(String value) {
      return new ByteArrayInputStream(value.getBytes(StandardCharsets.UTF_8));
    }

    @Override
    public String parse(InputStream stream) {
      try {
        return new String(stream.readAllBytes(), StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };

  static final MethodDescriptor<String, String> HOLD = method("test.Work/Hold", false);
  static final MethodDescriptor<String, String> ECHO = method("test.Work/Echo", false);
  static final MethodDescriptor<String, String> STREAM = method("test.Work/Stream", true);
  static final MethodDescriptor<String, String> RUN = method("test.Work/Run", false);
  static final MethodDescriptor<String, String> PING = method("test.Open/Ping", false);

  /** Handlers started (a queued call must not count here). */
  final AtomicInteger started = new AtomicInteger();
  /** Calls whose handler runs and waits to be finished, oldest first. */
  final BlockingQueue<StreamObserver<String>> held = new LinkedBlockingQueue<>();
  /** When each call reached the server (System.nanoTime), before Sluice saw it. */
  final List<Long> arrivals = new CopyOnWriteArrayList<>();

  /** test.Work/Run handlers running now, the most at once, and those that ended. */
  final AtomicInteger running = new AtomicInteger();

  final AtomicInteger mostRunning = new AtomicInteger();
  final AtomicInteger runsEnded = new AtomicInteger();

  final SluiceGrpc sluice;
  final Server server;
  final ManagedChannel channel;
  private final ExecutorService serverThreads = Executors.newFixedThreadPool(2);
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

  TestServer(SluiceGrpc sluice) throws IOException {
    this(sluice, UnaryOperator.identity());
  }

  TestServer(SluiceGrpc sluice, UnaryOperator<ManagedChannelBuilder<?>> channelOptions)
      throws IOException {
    this.sluice = sluice;
    ServerServiceDefinition work = ServerServiceDefinition.builder("test.Work")
        .addMethod(HOLD, ServerCalls.asyncUnaryCall((request, response) -> {
          started.incrementAndGet();
          held.add(response);
        }))
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, response) -> {
          started.incrementAndGet();
          response.onNext(request);
          response.onCompleted();
        }))
        .addMethod(RUN, ServerCalls.asyncUnaryCall((request, response) -> {
          started.incrementAndGet();
          mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
          // a call its client cancels (or whose deadline passes) gives its permit back at once,
          // as a handler is told to stop then: it stops counting as running at that moment
          AtomicBoolean counted = new AtomicBoolean(true);
          ((ServerCallStreamObserver<String>) response).setOnCancelHandler(() -> {
            if (counted.getAndSet(false)) {
              running.decrementAndGet();
            }
          });
          var unused = timer.schedule(
              () -> {
                // ends before the answer: the permit is given back only once the call closes
                if (counted.getAndSet(false)) {
                  running.decrementAndGet();
                }
                runsEnded.incrementAndGet();
                try {
                  response.onNext(request);
                  response.onCompleted();
                } catch (RuntimeException cancelled) {
                  // the client left or its deadline passed: nobody reads the answer
                }
              },
              Long.parseLong(request),
              TimeUnit.MILLISECONDS);
        }))
        .addMethod(STREAM, ServerCalls.asyncServerStreamingCall((request, response) -> {
          started.incrementAndGet();
          response.onNext("first");
          held.add(response);
        }))
        .build();
    ServerServiceDefinition open = ServerServiceDefinition.builder("test.Open")
        .addMethod(PING, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext("pong");
          response.onCompleted();
        }))
        .build();
    ServerInterceptor arrival = new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(
          ServerCall<Q, R> call, Metadata headers, ServerCallHandler<Q, R> next) {
        arrivals.add(System.nanoTime());
        return next.startCall(call, headers);
      }
    };
    // two server threads: a call that held one while queued would soon starve the server
    this.server = Grpc.newServerBuilderForPort(0, InsecureServerCredentials.create())
        .executor(serverThreads)
        .addService(sluice.wrap(work))
        .addService(open)
        .intercept(arrival)
        .build()
        .start();
    this.channel = channelOptions
        .apply(Grpc.newChannelBuilderForAddress(
                "127.0.0.1", server.getPort(), InsecureChannelCredentials.create())
            .directExecutor())
        .build();
  }

  /** Sluice with these properties (and nothing from the environment or -D). */
  static SluiceGrpc.Builder sluice(Map<String, String> properties) {
    return SluiceGrpc.builder()
        .properties(SluiceProperties.builder().env(Map.of()).system(properties).build());
  }

  Future<String> call(MethodDescriptor<String, String> method) {
    return call(method, CallOptions.DEFAULT, new Metadata());
  }

  Future<String> call(
      MethodDescriptor<String, String> method, CallOptions options, Metadata headers) {
    return ClientCalls.futureUnaryCall(
        io.grpc.ClientInterceptors.intercept(
                channel, io.grpc.stub.MetadataUtils.newAttachHeadersInterceptor(headers))
            .newCall(method, options),
        "hello");
  }

  /** Starts a call whose answer the test does not read. */
  @SuppressWarnings("FutureReturnValueIgnored") // the test watches the server's side only
  void send(MethodDescriptor<String, String> method) {
    call(method);
  }

  /** Starts a call whose answer the test does not read. */
  @SuppressWarnings("FutureReturnValueIgnored") // the test watches the server's side only
  void send(MethodDescriptor<String, String> method, CallOptions options, Metadata headers) {
    call(method, options, headers);
  }

  /** Answers the oldest held call and ends it. */
  void finishOne() throws InterruptedException {
    StreamObserver<String> response = held.poll(10, TimeUnit.SECONDS);
    if (response == null) {
      throw new AssertionError("no held call to finish");
    }
    response.onNext("done");
    response.onCompleted();
  }

  /** The status a finished call failed with (OK when it succeeded). */
  static Status statusOf(Future<?> call) throws InterruptedException {
    try {
      call.get(10, TimeUnit.SECONDS);
      return Status.OK;
    } catch (ExecutionException e) {
      return Status.fromThrowable(e.getCause());
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the call was not answered", e);
    }
  }

  /** The trailers a failed call carried. */
  static Metadata trailersOf(Future<?> call) throws InterruptedException {
    try {
      call.get(10, TimeUnit.SECONDS);
      return new Metadata();
    } catch (ExecutionException e) {
      Metadata trailers = Status.trailersFromThrowable(e.getCause());
      return trailers == null ? new Metadata() : trailers;
    } catch (java.util.concurrent.TimeoutException e) {
      throw new AssertionError("the call was not answered", e);
    }
  }

  static String pushback(Future<?> call) throws InterruptedException {
    return trailersOf(call).get(Answer.PUSHBACK);
  }

  private static MethodDescriptor<String, String> method(String name, boolean streaming) {
    return MethodDescriptor.<String, String>newBuilder()
        .setType(
            streaming
                ? MethodDescriptor.MethodType.SERVER_STREAMING
                : MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(name)
        .setRequestMarshaller(TEXT)
        .setResponseMarshaller(TEXT)
        .build();
  }

  @Override
  public void close() {
    channel.shutdownNow();
    server.shutdownNow();
    sluice.close();
    try {
      server.awaitTermination(10, TimeUnit.SECONDS);
      channel.awaitTermination(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    serverThreads.shutdownNow();
    timer.shutdownNow();
  }
}
