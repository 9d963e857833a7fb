package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.DoorBuilder;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LocalDoor;
import dev.sluice.config.PathLimiter;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.config.SluiceProperties;
import dev.sluice.config.SluiceSettings;
import dev.sluice.http.DashboardPage;
import dev.sluice.http.RuleSnapshot;
import dev.sluice.http.TrustedProxies;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.FilterConfig;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRegistration;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
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
  private FilterStatus status; // set with door
  private boolean enabled;
  // SluiceMeters, or null without Micrometer on the class path: typed Object so that reflecting
  // on this class (as Spring does on a bean) loads no Micrometer class
  private Object meters;

  /** A filter configured from {@link SluiceProperties#fromEnvironment()} at {@link #init}. */
  public SluiceFilter() {}

  private SluiceFilter(
      Door door, ExecutorService ownExecutor, FilterStatus status, boolean enabled, Object meters) {
    this.door = door;
    this.ownExecutor = ownExecutor;
    this.status = status;
    this.enabled = enabled;
    this.meters = meters;
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
      status = built.status;
      enabled = built.enabled;
      meters = built.meters;
    }
  }

  @Override
  public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
      throws IOException, ServletException {
    if (request instanceof HttpServletRequest req && response instanceof HttpServletResponse res) {
      if (OperatorPages.serves(req)) { // the status and live page pass, like health checks
        chain.doFilter(req, res);
        return;
      }
      door().filter(req, res, chain);
    } else {
      chain.doFilter(request, response);
    }
  }

  /**
   * Every limiter and rule as JSON, the Javalin plugin's status document (the same fields, listed
   * in the README), written without a JSON library. {@link #statusServlet()} answers it.
   */
  public String statusJson() {
    door(); // initialised
    return status.json(enabled);
  }

  /** Every rate rule in force with what it decided (allowed, rejected, shadow-rejected). */
  public List<RuleSnapshot> ruleSnapshots() {
    door();
    return status.ruleSnapshots();
  }

  /**
   * A servlet answering {@code GET} with {@link #statusJson()} wherever it is mapped. Register it
   * under the name {@code "sluice-status"} and the filter lets its requests pass the limiters and
   * rules ({@link #registerPages} does both).
   */
  public HttpServlet statusServlet() {
    door();
    return OperatorPages.status(this::statusJson);
  }

  /**
   * A servlet serving the live page: map it to {@code <path>/*} and it answers the page at {@code
   * <path>} and the status JSON the page polls at {@code <path>/data}. Asking for it starts the
   * page's series (the last five minutes of each limiter and of the CPU, sampled once a second),
   * which the status then carries. Register it under the name {@code "sluice-dashboard"} and the
   * filter lets its requests pass the limiters and rules ({@link #registerPages} does both).
   */
  public HttpServlet dashboardServlet() {
    door();
    status.keepHistory();
    return OperatorPages.dashboard(this::statusJson);
  }

  /**
   * Adds the status at {@code path} ({@code "/sluice"}) and the live page at {@code
   * <path>/dashboard} to {@code context}, under the names the filter lets pass, as the Javalin
   * plugin serves them; called where {@link #register} is (a {@code ServletContainerInitializer},
   * a {@code ServletContextListener}, Spring's {@code ServletContextInitializer}).
   */
  public void registerPages(ServletContext context, String path) {
    String base = DashboardPage.base(path);
    ServletRegistration.Dynamic s = context.addServlet(OperatorPages.STATUS, statusServlet());
    s.addMapping(base);
    ServletRegistration.Dynamic d = context.addServlet(OperatorPages.DASHBOARD, dashboardServlet());
    d.addMapping(base + "/dashboard/*");
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
    status.close();
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
   * The filter's Micrometer meters, the Javalin plugin's names and tags (listed in the README).
   * Micrometer is optional for the filter: its types appear only here and in {@link
   * Builder#meterRegistry}, so a filter without Micrometer on the class path never loads them.
   *
   * <pre>{@code
   * SluiceFilter.Meters.of(sluice).bindTo(registry);
   * }</pre>
   */
  public static final class Meters {

    private Meters() {}

    /**
     * The meters of {@code filter}: bind them to any number of registries, before or after the
     * container starts ({@link Builder#meterRegistry} binds before any request is counted).
     *
     * @throws IllegalStateException when Micrometer ({@code io.micrometer:micrometer-core}) and
     *     {@code dev.sluice:sluice-micrometer} are not on the class path
     */
    public static dev.sluice.micrometer.SluiceMeters of(SluiceFilter filter) {
      filter.door();
      if (!(filter.meters instanceof dev.sluice.micrometer.SluiceMeters m)) {
        throw new IllegalStateException("SluiceFilter's meters need io.micrometer:micrometer-core"
            + " and dev.sluice:sluice-micrometer on the class path");
      }
      return m;
    }
  }

  /**
   * Builds a {@link SluiceFilter}; properties win over code for the same limiter, as in the plugin.
   * The executor only dispatches a request that waited back to the container; one made here is
   * stopped by {@link SluiceFilter#destroy()}.
   */
  public static final class Builder extends DoorBuilder<Builder> {

    // Micrometer registries, typed Object so that the filter loads without Micrometer
    private final List<Object> registries = new java.util.ArrayList<>();

    private Builder() {}

    /**
     * Binds the filter's meters ({@link Meters#of}) to {@code registry} when {@link #build()} has
     * checked every setting, before any request is counted; a build that fails binds nothing. May
     * be called for several registries.
     */
    public Builder meterRegistry(io.micrometer.core.instrument.MeterRegistry registry) {
      registries.add(Objects.requireNonNull(registry, "registry"));
      return this;
    }

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
      FilterStatus status = new FilterStatus(clockInUse(), schedulerInUse(), cpuSignalsInUse());
      // the meters reach the registries only once every setting is checked: a build that fails
      // registers nothing (no gauges over limiters that never run)
      Object meters = FilterMeters.onClassPath() ? FilterMeters.unbound() : null;
      Parts parts = parts(
          LocalDoor.Words.SERVLET_FILTER,
          "sluice-servlet",
          status.limiterListener(FilterMeters.limiterListener(meters)),
          status.ruleListener(FilterMeters.ruleListener(meters)));
      SluiceSettings settings = parts.settings();
      LocalDoor door = parts.door();
      TrustedProxies proxies;
      try {
        proxies = TrustedProxies.of(settings, parts.properties());
      } catch (RuntimeException e) {
        door.limiters().forEach(l -> l.limiter().shutdown());
        if (parts.ownExecutor() != null) {
          parts.ownExecutor().shutdown();
        }
        throw e;
      }
      status.built(door.limiters(), door.rules());
      FilterMeters.gauges(meters, door.limiters(), door.rules());
      FilterMeters.bindTo(meters, registries);
      return new SluiceFilter(
          new Door(
              settings, proxies, door.limiters(), door.rules(), FilterMeters.rejections(meters)),
          parts.ownExecutor(),
          status,
          settings.enabled(),
          meters);
    }
  }
}
