package dev.sluice.loadtest.engine;

import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.ClientStreamTracer;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A client of the demo's gRPC door as a well-behaved service would write one: a channel whose
 * service config gives {@code transcode.Transcoder/Transcode} a retry policy that retries {@code
 * RESOURCE_EXHAUSTED} (grpc-java waits out the {@code grpc-retry-pushback-ms} trailer before the
 * next attempt), and a stream tracer on every call that records each attempt: when it started (its
 * headers were sent), and when it closed with which status and pushback ({@link PushbackCheck}
 * judges them).
 */
public final class RetryingGrpcClient implements AutoCloseable {

  /** Attempts per call, the first included. */
  public static final int MAX_ATTEMPTS = 4;

  private final ManagedChannel channel;
  private final ExecutorService executor;
  private final Duration deadline;
  private final LongSupplier nanoClock;
  private final AtomicLong calls = new AtomicLong();
  private final AtomicInteger open = new AtomicInteger();
  private final Queue<PushbackCheck.Attempt> attempts = new ConcurrentLinkedQueue<>();

  /**
   * @param deadline each call's deadline, over all its attempts
   */
  public RetryingGrpcClient(String host, int port, Duration deadline) {
    this.deadline = deadline;
    this.nanoClock = System::nanoTime;
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread thread = new Thread(r, "loadtest-grpc-retrying");
      thread.setDaemon(true);
      return thread;
    });
    this.channel = Grpc.newChannelBuilderForAddress(host, port, InsecureChannelCredentials.create())
        .executor(executor)
        .defaultServiceConfig(serviceConfig())
        .enableRetry()
        .build();
  }

  /**
   * The service config: numbers as {@code Double} and durations as text, as grpc-java reads its
   * JSON form.
   */
  static Map<String, ?> serviceConfig() {
    Map<String, Object> retryPolicy = Map.of(
        "maxAttempts",
        (double) MAX_ATTEMPTS,
        "initialBackoff",
        "0.1s",
        "maxBackoff",
        "1s",
        "backoffMultiplier",
        2.0,
        "retryableStatusCodes",
        List.of("RESOURCE_EXHAUSTED"));
    Map<String, Object> methodConfig = Map.of(
        "name",
        List.of(Map.of("service", "transcode.Transcoder", "method", "Transcode")),
        "retryPolicy",
        retryPolicy);
    return Map.of("methodConfig", List.of(methodConfig));
  }

  /**
   * Sends a transcode job, retried by the channel's policy.
   *
   * @param path the job as the HTTP door's path, e.g. {@code /api/transcode?cpuMillis=400}
   * @param headers its headers, sent as metadata in lower case
   * @return the status of its last attempt
   */
  public CompletableFuture<Status> call(String path, Map<String, String> headers) {
    long id = calls.incrementAndGet();
    CompletableFuture<Status> done = new CompletableFuture<>();
    ClientCall<String, String> call = channel.newCall(
        GrpcTransport.TRANSCODE,
        CallOptions.DEFAULT
            .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
            .withStreamTracerFactory(new Tracing(id)));
    open.incrementAndGet();
    call.start(
        new ClientCall.Listener<>() {
          @Override
          public void onClose(Status status, Metadata trailers) {
            open.decrementAndGet();
            done.complete(status);
          }
        },
        GrpcTransport.metadata(headers));
    call.sendMessage(GrpcTransport.json(path));
    call.halfClose();
    call.request(2);
    return done;
  }

  /**
   * Waits until the channel is connected to the door (see {@link GrpcTransport#awaitReady}).
   *
   * @throws IOException when the door did not accept a connection within {@code timeout}
   */
  public void awaitReady(Duration timeout) throws IOException, InterruptedException {
    GrpcTransport.awaitReady(channel, timeout);
  }

  /** Calls not closed yet. */
  public int open() {
    return open.get();
  }

  /** Every attempt recorded so far, judged. */
  public PushbackCheck check() {
    return PushbackCheck.of(List.copyOf(attempts));
  }

  /** A tracer per attempt of one call, created by grpc-java as each attempt starts. */
  private final class Tracing extends ClientStreamTracer.Factory {
    private final long call;
    private final AtomicInteger next = new AtomicInteger();

    Tracing(long call) {
      this.call = call;
    }

    @Override
    public ClientStreamTracer newClientStreamTracer(
        ClientStreamTracer.StreamInfo info, Metadata headers) {
      int number = next.getAndIncrement();
      boolean transparent = info.isTransparentRetry();
      return new ClientStreamTracer() {
        private volatile long pushback = -1;
        private volatile long sent;
        private volatile boolean headersSent;

        // grpc-java creates a retry's stream (and this tracer) when the previous attempt closes and
        // starts it when the backoff or pushback is over: the attempt starts when its headers go
        @Override
        public void outboundHeaders() {
          sent = nanoClock.getAsLong();
          headersSent = true;
        }

        @Override
        public void inboundTrailers(Metadata trailers) {
          pushback = pushbackMillis(trailers.get(GrpcTransport.PUSHBACK));
        }

        @Override
        public void streamClosed(Status status) {
          long closed = nanoClock.getAsLong();
          attempts.add(new PushbackCheck.Attempt(
              call,
              number,
              headersSent ? sent : closed,
              closed,
              status.getCode().name(),
              pushback,
              transparent,
              headersSent));
        }
      };
    }
  }

  /** The trailer's milliseconds, or -1 without one (or one grpc-java would not read either). */
  static long pushbackMillis(String trailer) {
    if (trailer == null) {
      return -1;
    }
    try {
      long ms = Long.parseLong(trailer.trim());
      return ms >= 0 ? ms : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public void close() {
    GrpcTransport.close(channel, executor);
  }
}
