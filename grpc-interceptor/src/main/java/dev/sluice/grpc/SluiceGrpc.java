package dev.sluice.grpc;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.DoorBuilder;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
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
 *
 * <p>A limiter built and owned elsewhere, the Javalin plugin's say, can guard methods too ({@link
 * Builder#shared}): a call and an HTTP request then wait in one queue for the same permits.
 *
 * <pre>{@code
 * SluiceGrpc grpc = SluiceGrpc.builder()
 *     .properties(SluiceProperties.builder().env(Map.of()).system(Map.of()).build())
 *     .shared("/transcode.Transcoder/*",
 *         plugin.limiterConfig("transcode").orElseThrow(),
 *         plugin.limiter("transcode").orElseThrow())
 *     .build();
 * }</pre>
 */
public final class SluiceGrpc implements AutoCloseable {

  private final List<PathLimiter> limiters; // own, then shared
  private final List<PathLimiter> own;
  private final LimitingInterceptor interceptor;
  // null when the application gave one, or when no limiter of this door's own runs on it
  private final ExecutorService ownExecutor;

  private SluiceGrpc(
      List<PathLimiter> limiters,
      List<PathLimiter> own,
      LimitingInterceptor interceptor,
      ExecutorService ownExecutor) {
    this.limiters = limiters;
    this.own = own;
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

  /** The limiter named {@code name} (one of its own or a shared one), for its snapshot. */
  public Optional<ConcurrencyLimiter> limiter(String name) {
    return limiters.stream()
        .filter(m -> m.name().equals(name))
        .map(PathLimiter::limiter)
        .findFirst();
  }

  /**
   * The settings of every limiter, in the order they are tried (the first whose path matches
   * guards a call): its own in declaration order, then the shared ones in the order {@link
   * Builder#shared} added them (with the config given there: its {@code path} is the owner's).
   */
  public List<LimiterConfig> limiters() {
    return limiters.stream().map(PathLimiter::config).toList();
  }

  /**
   * Stops admitting: new calls and queued ones are answered {@code UNAVAILABLE} with {@code
   * grpc-retry-pushback-ms}; running calls go on (see {@link #awaitDrained}). This door's own
   * limiters are shut down; a {@linkplain Builder#shared shared} limiter is not (its owner shuts it
   * down): this door's calls waiting in its queue leave it (counted by the limiter as cancelled) and
   * the other door's requests go on being admitted.
   */
  public void shutdown() {
    interceptor.stopAdmitting();
    own.forEach(m -> m.limiter().shutdown());
  }

  /**
   * Waits, up to one deadline, for the running calls of this door's own limiters (their {@link
   * ConcurrencyLimiter#awaitDrained}) and for this door's calls that hold a {@linkplain
   * Builder#shared shared} limiter's permit; the other door's requests on a shared limiter are not
   * waited for.
   *
   * @return whether everything drained in time
   */
  public boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean drained = true;
    for (PathLimiter m : own) {
      long left = Math.max(0, deadline - System.nanoTime());
      drained &= m.limiter().awaitDrained(Duration.ofNanos(left));
    }
    return interceptor.awaitSharedDrained(deadline) && drained;
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
   * handler on one pool); one made here is stopped by {@link SluiceGrpc#close()}. None is made for
   * a door without limiters of its own: a call that waited on a {@linkplain #shared shared} limiter
   * starts on its owner's executor.
   */
  public static final class Builder extends DoorBuilder<Builder> {

    private final List<PathLimiter> shared = new ArrayList<>();

    private Builder() {}

    /**
     * Guards the methods {@code methodPattern} matches with a limiter built and owned elsewhere (by
     * the Javalin plugin, say: {@code plugin.limiter(name)} and {@code plugin.limiterConfig(name)}),
     * so this door's calls and the owner's requests wait in one queue for the same permits.
     * {@code config} is the limiter's own: its queue discipline (a {@code header:NAME} queue key and
     * {@code priority-header} read from the call's metadata, in lower case) and its queue timeout;
     * its {@code path} is the owner's and is not used here. Each call asks for one permit.
     *
     * <p>This door never shuts the limiter down: {@link SluiceGrpc#shutdown()} only stops this
     * door's calls (see there). Shared limiters are tried after this door's own, in the order they
     * were added; one limiter may be shared on several patterns.
     *
     * <pre>{@code
     * builder.shared("/transcode.Transcoder/*", plugin.limiterConfig("transcode").orElseThrow(),
     *     plugin.limiter("transcode").orElseThrow());
     * }</pre>
     *
     * @param methodPattern the methods' HTTP/2 paths: {@code /package.Service/Method}, {@code
     *     /package.Service/*} or {@code /package.Service/**}
     * @throws IllegalArgumentException when {@code config} is another limiter's (their names
     *     differ), the pattern is malformed or can match no method, another shared limiter already
     *     has the same pattern, or another limiter of the same name is shared already
     */
    public Builder shared(String methodPattern, LimiterConfig config, ConcurrencyLimiter limiter) {
      Objects.requireNonNull(config, "config");
      Objects.requireNonNull(limiter, "limiter");
      if (!config.name().equals(limiter.name())) {
        throw new IllegalArgumentException("shared limiter '" + limiter.name()
            + "' was given the config of limiter '" + config.name()
            + "': pass the config its owner built it from");
      }
      PathLimiter guard = methodPattern(methodPattern, config, limiter);
      for (PathLimiter s : shared) {
        if (s.guardsSamePaths(guard)) {
          throw new IllegalArgumentException("gRPC method pattern '" + methodPattern
              + "' is shared twice (limiter '" + s.name() + "' has it already)");
        }
        if (s.name().equals(limiter.name()) && s.limiter() != limiter) {
          throw new IllegalArgumentException("another limiter named '" + limiter.name()
              + "' is shared already: two limiters of one name cannot be told apart");
        }
      }
      shared.add(guard);
      return this;
    }

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
      try {
        checkShared(built);
      } catch (RuntimeException e) {
        built.forEach(m -> m.limiter().shutdown());
        if (parts.ownExecutor() != null) {
          parts.ownExecutor().shutdown();
        }
        throw e;
      }
      List<PathLimiter> all = new ArrayList<>(built);
      all.addAll(shared);
      RateRules rateRules = parts.door().rules();
      return new SluiceGrpc(
          List.copyOf(all),
          built,
          new LimitingInterceptor(all, Set.copyOf(shared), rateRules, parts.settings()),
          parts.ownExecutor());
    }

    /** A limiter of this door's own may not take a shared one's name or pattern. */
    private void checkShared(List<PathLimiter> built) {
      for (PathLimiter mine : built) {
        for (PathLimiter s : shared) {
          LimiterConfig c = mine.config();
          String problem = null;
          if (mine.name().equals(s.name())) {
            problem = "limiter '" + s.name() + "' is shared with this door (Builder.shared); a"
                + " limiter of the door's own cannot have its name";
          } else if (mine.guardsSamePaths(s)) {
            problem = "limiter '" + s.name() + "', shared with this door, guards '" + s.pattern()
                + "' already";
          }
          if (problem != null) {
            throw new SluiceConfigException(
                c.property(LimiterKeys.PATH),
                c.path().orElse(null),
                c.source(LimiterKeys.PATH),
                problem);
          }
        }
      }
    }

    private static PathLimiter methodPattern(
        String text, LimiterConfig config, ConcurrencyLimiter limiter) {
      String hint = "; a method's path is /package.Service/Method: use it, /package.Service/* or"
          + " /package.Service/**";
      if (text == null || !text.startsWith("/")) {
        throw new IllegalArgumentException(
            "gRPC method pattern '" + text + "' must start with '/'" + hint);
      }
      PathLimiter guard;
      try {
        guard = new PathLimiter(config, text, limiter);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            "gRPC method pattern '" + text + "' is malformed: " + e.getMessage(), e);
      }
      if (!guard.reachesDepth(2)) {
        throw new IllegalArgumentException(
            "gRPC method pattern '" + text + "' can match no method" + hint);
      }
      return guard;
    }
  }
}
