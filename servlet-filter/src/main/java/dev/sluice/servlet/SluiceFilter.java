package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.DoorBuilder;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LocalDoor;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.TrustedProxies;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;

/**
 * Sluice in front of a Jakarta Servlet 6 application: the same {@code sluice.*} properties, the
 * same per-path limiters, rate rules and queue, and the same answers as the Javalin plugin
 * (problem+json, {@code Retry-After}, the {@code RateLimit} fields).
 *
 * <pre>{@code
 * SluiceFilter sluice = SluiceFilter.builder()
 *     .properties(SluiceProperties.load(Path.of("sluice.properties")))
 *     .build();
 * sluice.register(servletContext, "/*");
 * }</pre>
 *
 * <p>A request that must wait holds no container thread: the filter suspends it ({@code
 * startAsync}) until its permit comes, then dispatches it again to the rest of the chain. The
 * filter is therefore registered with {@code asyncSupported} and for the {@code REQUEST} and
 * {@code ASYNC} dispatcher types ({@link #register} does both), and the servlets it guards
 * support async too. {@link #destroy()} stops admitting (new and queued requests are answered 503
 * shutting down) and waits up to {@code sluice.drain-timeout} for the running ones.
 *
 * <p>A filter made with the public no-argument constructor (a {@code web.xml} or {@code
 * addFilter(name, SluiceFilter.class)}) reads {@link SluiceProperties#fromEnvironment()} when the
 * container initialises it.
 */
public final class SluiceFilter implements Filter {

  private Door door; // set by the builder, or by init for a filter the container made
  private ExecutorService ownExecutor; // null when the application gave one

  /** A filter configured from {@link SluiceProperties#fromEnvironment()} at {@link #init}. */
  public SluiceFilter() {}

  private SluiceFilter(Door door, ExecutorService ownExecutor) {
    this.door = door;
    this.ownExecutor = ownExecutor;
  }

  /** A builder: properties, limiters and rules declared in code, executor, clock. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * The limiters and rules {@code properties} declare.
   *
   * @throws SluiceConfigException naming key, value and source, at the first bad value
   */
  public static SluiceFilter fromProperties(SluiceProperties properties) {
    return builder().properties(properties).build();
  }

  /**
   * Adds this filter to {@code context} for {@code urlPatterns} ({@code "/*"}: every request),
   * async-supported, for the {@code REQUEST} and {@code ASYNC} dispatches, before the filters
   * registered so far by {@code web.xml}.
   */
  public FilterRegistration.Dynamic register(ServletContext context, String... urlPatterns) {
    FilterRegistration.Dynamic f = context.addFilter("sluice", this);
    f.setAsyncSupported(true);
    f.addMappingForUrlPatterns(
        EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, urlPatterns);
    return f;
  }

  @Override
  public synchronized void init(FilterConfig config) throws ServletException {
    if (door == null) {
      SluiceFilter built = fromProperties(SluiceProperties.fromEnvironment());
      door = built.door;
      ownExecutor = built.ownExecutor;
    }
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
      door().filter(req, res, chain);
    } else {
      chain.doFilter(request, response);
    }
  }

  /** The limiter named {@code name}, for its snapshot and runtime changes. */
  public Optional<ConcurrencyLimiter> limiter(String name) {
    return door().limiters().stream()
        .filter(l -> l.name().equals(name))
        .map(PathLimiter::limiter)
        .findFirst();
  }

  /** The settings of every limiter, in declaration order (the first whose path matches guards a request). */
  public List<LimiterConfig> limiters() {
    return door().limiters().stream().map(PathLimiter::config).toList();
  }

  /**
   * Stops admitting: new requests and queued ones are answered 503 shutting down, with {@code
   * Retry-After} and {@code Connection: close}; running requests go on (see {@link
   * #awaitDrained}).
   */
  public void shutdown() {
    Door d = door();
    d.stopAdmitting();
    d.limiters().forEach(l -> l.limiter().shutdown());
  }

  /** Waits for the running requests of every limiter, up to one shared deadline. */
  public boolean awaitDrained(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    boolean drained = true;
    for (PathLimiter l : door().limiters()) {
      long left = Math.max(0, deadline - System.nanoTime());
      drained &= l.limiter().awaitDrained(Duration.ofNanos(left));
    }
    return drained;
  }

  /**
   * {@link #shutdown()}, waits up to {@code sluice.drain-timeout} for the running requests, and
   * stops the executor this filter made (never one it was given).
   */
  @Override
  public void destroy() {
    if (door == null) {
      return;
    }
    shutdown();
    try {
      awaitDrained(door.drainTimeout());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (ownExecutor != null) {
      ownExecutor.shutdown();
    }
  }

  private Door door() {
    Door d = door;
    if (d == null) {
      throw new IllegalStateException("SluiceFilter is not initialised: the container calls"
          + " init(FilterConfig) before the first request");
    }
    return d;
  }

  /**
   * Builds a {@link SluiceFilter}; properties win over code for the same limiter, as in the plugin.
   * The executor only dispatches a request that waited back to the container; one made here is
   * stopped by {@link SluiceFilter#destroy()}.
   */
  public static final class Builder extends DoorBuilder<Builder> {

    private Builder() {}

    /** This builder. */
    @Override
    protected Builder self() {
      return this;
    }

    /**
     * Parses and checks every setting and builds the limiters.
     *
     * @throws SluiceConfigException naming key, value and source, at the first bad value or at a
     *     setting this filter does not support
     */
    public SluiceFilter build() {
      Parts parts = parts(LocalDoor.Words.SERVLET_FILTER, "sluice-servlet");
      SluiceSettings settings = parts.settings();
      TrustedProxies proxies = TrustedProxies.of(settings, parts.properties());
      LocalDoor door = parts.door();
      return new SluiceFilter(
          new Door(settings, proxies, door.limiters(), door.rules()), parts.ownExecutor());
    }
  }
}
