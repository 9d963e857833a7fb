package dev.sluice.benchmarks;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.sluice.grpc.SluiceGrpc;
import io.grpc.CallOptions;
import io.grpc.ForwardingServerCall;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * What a limiting interceptor costs a trivial unary gRPC call: the same empty {@code bench.Echo/Call}
 * method with no interceptor, behind Sluice's interceptor (a concurrency limiter that is never
 * full), and behind a Netflix concurrency-limits {@link SimpleLimiter} (a fixed limit, never reached)
 * in a thin interceptor of the kind its gRPC module uses: acquire at the call's start, refuse with
 * {@code UNAVAILABLE} when empty, release when the call closes.
 *
 * <p>The in-process transport with direct executors on both sides runs the whole call, client and
 * server, on the benchmark's thread, so the time per call is its CPU, with no thread hand-off or
 * socket in it: the interceptor's share is as visible as it can be. A real server's call costs the
 * transport's work besides (tens of microseconds over Netty), the same for every variant.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class GrpcInterceptorBenchmark {

  private static final byte[] EMPTY = new byte[0];

  static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new IllegalStateException(e);
      }
    }
  };

  static final MethodDescriptor<byte[], byte[]> CALL = MethodDescriptor.<byte[], byte[]>newBuilder()
      .setType(MethodDescriptor.MethodType.UNARY)
      .setFullMethodName("bench.Echo/Call")
      .setRequestMarshaller(BYTES)
      .setResponseMarshaller(BYTES)
      .build();

  private Server noneServer;
  private Server sluiceServer;
  private Server netflixServer;
  private ManagedChannel none;
  private ManagedChannel sluice;
  private ManagedChannel netflix;
  private SluiceGrpc sluiceGrpc;

  @Setup(Level.Trial)
  public void setUp() throws IOException {
    sluiceGrpc = SluiceGrpc.builder()
        .limiter("echo", l -> l.path("/bench.Echo/*").maxConcurrency(1_000_000))
        .build();
    Limiter<Void> netflixLimiter =
        SimpleLimiter.newBuilder().limit(FixedLimit.of(1_000_000)).build();
    noneServer = start("none", echo());
    sluiceServer = start("sluice", sluiceGrpc.wrap(echo()));
    netflixServer = start(
        "netflix", ServerInterceptors.intercept(echo(), new NetflixInterceptor(netflixLimiter)));
    none = channel("none");
    sluice = channel("sluice");
    netflix = channel("netflix");
    for (ManagedChannel channel : new ManagedChannel[] {none, sluice, netflix}) {
      if (call(channel).length != 0) {
        throw new IllegalStateException("the echo method answered something else");
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() {
    for (ManagedChannel channel : new ManagedChannel[] {none, sluice, netflix}) {
      channel.shutdownNow();
    }
    for (Server server : new Server[] {noneServer, sluiceServer, netflixServer}) {
      server.shutdownNow();
    }
    sluiceGrpc.close();
  }

  /** grpc-java with no interceptor: the floor. */
  @Benchmark
  @Threads(1)
  public byte[] noInterceptor() {
    return call(none);
  }

  /** Sluice's interceptor: a permit taken at once, held until the call closes. */
  @Benchmark
  @Threads(1)
  public byte[] sluice() {
    return call(sluice);
  }

  /** Netflix concurrency-limits behind a thin interceptor. */
  @Benchmark
  @Threads(1)
  public byte[] netflix() {
    return call(netflix);
  }

  private static byte[] call(ManagedChannel channel) {
    return ClientCalls.blockingUnaryCall(channel, CALL, CallOptions.DEFAULT, EMPTY);
  }

  private static ServerServiceDefinition echo() {
    return ServerServiceDefinition.builder("bench.Echo")
        .addMethod(CALL, ServerCalls.asyncUnaryCall((request, response) -> {
          response.onNext(EMPTY);
          response.onCompleted();
        }))
        .build();
  }

  private static Server start(String name, ServerServiceDefinition service) throws IOException {
    return InProcessServerBuilder.forName("bench-" + name)
        .directExecutor()
        .addService(service)
        .build()
        .start();
  }

  private static ManagedChannel channel(String name) {
    return InProcessChannelBuilder.forName("bench-" + name).directExecutor().build();
  }

  /**
   * The thin interceptor: a listener from the limiter or {@code UNAVAILABLE}; success when the call
   * closes with OK, ignored otherwise (a failed call says nothing of the limit).
   */
  static final class NetflixInterceptor implements ServerInterceptor {
    private final Limiter<Void> limiter;

    NetflixInterceptor(Limiter<Void> limiter) {
      this.limiter = limiter;
    }

    @Override
    public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
        ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
      Optional<Limiter.Listener> listener = limiter.acquire(null);
      if (listener.isEmpty()) {
        call.close(Status.UNAVAILABLE.withDescription("limit reached"), new Metadata());
        return new ServerCall.Listener<>() {};
      }
      Limiter.Listener held = listener.get();
      return next.startCall(
          new ForwardingServerCall.SimpleForwardingServerCall<>(call) {
            @Override
            public void close(Status status, Metadata trailers) {
              if (status.isOk()) {
                held.onSuccess();
              } else {
                held.onIgnore();
              }
              super.close(status, trailers);
            }
          },
          headers);
    }
  }
}
