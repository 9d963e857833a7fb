package dev.sluice.grpc;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.DoorBuilder;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LocalDoor;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.rules.RateRules;
import io.grpc.BindableService;
import io.grpc.ServerInterceptor;
import io.grpc.ServerInterceptors;
import io.grpc.ServerServiceDefinition;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * Sluice's concurrency limiters (and local rate rules) in front of gRPC methods, configured by the
 * same {@code sluice.*} properties as the Javalin plugin; a limiter's {@code path} and a rule's
 * {@code resource} name methods by their HTTP/2 path, {@code /package.Service/Method} or {@code
 * /package.Service/*}.
 *
 * <pre>{@code
 * SluiceGrpc sluice = SluiceGrpc.builder()
 *     .properties(SluiceProperties.load(Path.of("sluice.properties")))
 *     .limiter("transcode", l -> l.path("/sluice.demo.v1.Transcoder/*").maxConcurrency(4))
 *     .build();
 * Server server = ServerBuilder.forPort(9090).addService(sluice.wrap(new TranscoderService())).build();
 * }</pre>
 *
 * <p>A call that must wait holds no thread and is not started (no handler, no message read) until
 * its permit comes; it then starts on the {@linkplain Builder#executor executor}. A call holds its
 * permit until it is over, so a streaming call holds it for all its messages. {@link #close()} stops
 * admitting (queued and new calls get {@code UNAVAILABLE}).
 */
public final class SluiceGrpc implements AutoCloseable {

  private final List<PathLimiter> limiters;
  private final LimitingInterceptor interceptor;
  private final ExecutorService ownExecutor; // null when the application gave one

  private SluiceGrpc(
      List<PathLimiter> limiters, LimitingInterceptor interceptor, ExecutorService ownExecutor) {
    this.limiters = limiters;
    this.interceptor = interceptor;
    this.ownExecutor = ownExecutor;
  }

  /** A builder: properties, limiters declared in code, executor, clock. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The limiters {@code properties} declare.
   *
   * @throws SluiceConfigException naming key, value and source, at the first bad value
   */
  public static SluiceGrpc fromProperties(SluiceProperties properties) {
    return builder().properties(properties).build();
  }

  /** The interceptor, for {@code ServerInterceptors.intercept} or a server-wide interceptor. */
  public ServerInterceptor interceptor() {
    return interceptor;
  }

  /** {@code service} with its calls limited. */
  public ServerServiceDefinition wrap(ServerServiceDefinition service) {
    return ServerInterceptors.intercept(service, interceptor);
  }

  /** {@code service} with its calls limited. */
  public ServerServiceDefinition wrap(BindableService service) {
    return ServerInterceptors.intercept(service, interceptor);
  }

  /** The limiter named {@code name}, for its snapshot and runtime changes. */
  public Optional<ConcurrencyLimiter> limiter(String name) {
    return limiters.stream()
        .filter(m -> m.name().equals(name))
        .map(PathLimiter::limiter)
        .findFirst();
  }

  /** The settings of every limiter, in declaration order (the first whose path matches guards a call). */
  public List<LimiterConfig> limiters() {
    return limiters.stream().map(PathLimiter::config).toList();
  }

  /**
   * Stops admitting: new calls and queued ones are answered {@code UNAVAILABLE} with {@code
   * grpc-retry-pushback-ms}; running calls go on (see {@link #awaitDrained}).
   */
  public void shutdown() {
    interceptor.stopAdmitting();
    limiters.forEach(m -> m.limiter().shutdown());
  }

  /** Waits for the running calls of every limiter, up to one shared deadline. */
  public boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean drained = true;
    for (PathLimiter m : limiters) {
      long left = Math.max(0, deadline - System.nanoTime());
      drained &= m.limiter().awaitDrained(Duration.ofNanos(left));
    }
    return drained;
  }

  /** {@link #shutdown()}, and stops the executor this instance made (never one it was given). */
  @Override
  public void close() {
    shutdown();
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
  }

  /**
   * Builds a {@link SluiceGrpc}; properties win over code for the same limiter, as in the plugin.
   * A call that waited starts its handler on the executor (give it the server's own to run every
   * handler on one pool); one made here is stopped by {@link SluiceGrpc#close()}.
   */
  public static final class Builder extends DoorBuilder<Builder> {

    private Builder() {}

    /** This builder. */
    @Override
    protected Builder self() {
      return this;
    }

    /** Declares a limiter from a finished config (replacing one of the same name). */
    public Builder limiter(LimiterConfig limiter) {
      declare(limiter);
      return this;
    }

    /**
     * Parses and checks every setting and builds the limiters.
     *
     * @throws SluiceConfigException naming key, value and source, at the first bad value or at a
     *     setting this door does not support
     */
    public SluiceGrpc build() {
      Parts parts = parts(LocalDoor.Words.GRPC_INTERCEPTOR, "sluice-grpc");
      List<PathLimiter> built = parts.door().limiters();
      RateRules rateRules = parts.door().rules();
      return new SluiceGrpc(
          built, new LimitingInterceptor(built, rateRules, parts.settings()), parts.ownExecutor());
    }
  }
}
