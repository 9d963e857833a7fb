package dev.sluice.benchmarks;

import com.netflix.concurrency.limits.Limiter;
import com.netflix.concurrency.limits.limit.FixedLimit;
import com.netflix.concurrency.limits.limiter.SimpleLimiter;
import dev.sluice.servlet.SluiceFilter;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.ee10.servlets.QoSFilter;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.LocalConnector;
import org.eclipse.jetty.server.Server;
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
 * What a limiting Servlet filter costs a trivial request: the same empty servlet in Jetty 12 (ee10)
 * with no filter, behind Sluice's {@link SluiceFilter} (a limiter that is never full), behind
 * Jetty's own {@link QoSFilter} (its limit never reached) and behind a Netflix concurrency-limits
 * {@link SimpleLimiter} in a thin filter (acquire, refuse with 503 when empty, release after the
 * chain).
 *
 * <p>Each request goes through Jetty's in-memory {@link LocalConnector}: HTTP parsing, the
 * servlet pipeline and the response, with no socket. The connector hands the request to the
 * server's thread pool and the benchmark's thread waits for the response, so the time per request
 * holds a thread hand-off besides its CPU, the same for every variant; compare the variants with
 * each other in one run (and their allocation with {@code -prof gc}), not with other benchmarks.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
@State(Scope.Benchmark)
public class ServletFilterBenchmark {

  private static final String PATH = "/api/echo";
  private static final ByteBuffer REQUEST =
      ByteBuffer.wrap(("GET " + PATH + " HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n")
          .getBytes(StandardCharsets.US_ASCII));

  private Server server;
  private LocalConnector none;
  private LocalConnector sluice;
  private LocalConnector qos;
  private LocalConnector netflix;
  private SluiceFilter sluiceFilter;

  @Setup(Level.Trial)
  @SuppressWarnings("deprecation") // QoSFilter: Jetty 12 keeps it beside its QoSHandler; the peer
  public void setUp() throws Exception {
    server = new Server();
    sluiceFilter = SluiceFilter.builder()
        .limiter("echo", l -> l.path("/api/*").maxConcurrency(1_000_000))
        .build();
    FilterHolder qosFilter = new FilterHolder(new QoSFilter());
    qosFilter.setInitParameter("maxRequests", "1000000");
    FilterHolder netflixFilter = new FilterHolder(new NetflixFilter(
        SimpleLimiter.newBuilder().limit(FixedLimit.of(1_000_000)).build()));

    none = connector("none", null);
    sluice = connector("sluice", new FilterHolder(sluiceFilter));
    qos = connector("qos", qosFilter);
    netflix = connector("netflix", netflixFilter);
    server.start();
    for (LocalConnector connector : new LocalConnector[] {none, sluice, qos, netflix}) {
      String response = StandardCharsets.US_ASCII.decode(call(connector)).toString();
      if (!response.startsWith("HTTP/1.1 200")) {
        throw new IllegalStateException("the echo servlet answered " + response);
      }
    }
  }

  @TearDown(Level.Trial)
  public void tearDown() throws Exception {
    server.stop();
  }

  /** Jetty with no filter: the floor. */
  @Benchmark
  @Threads(1)
  public ByteBuffer noFilter() throws Exception {
    return call(none);
  }

  /** Sluice's filter: a permit taken at once, released when the request ends. */
  @Benchmark
  @Threads(1)
  public ByteBuffer sluice() throws Exception {
    return call(sluice);
  }

  /** Jetty's QoSFilter: a semaphore permit for the request. */
  @Benchmark
  @Threads(1)
  public ByteBuffer qosFilter() throws Exception {
    return call(qos);
  }

  /** Netflix concurrency-limits behind a thin filter. */
  @Benchmark
  @Threads(1)
  public ByteBuffer netflix() throws Exception {
    return call(netflix);
  }

  private static ByteBuffer call(LocalConnector connector) throws Exception {
    return connector.getResponse(REQUEST.duplicate());
  }

  /** One context per variant, each on its own in-memory connector (a virtual host by name). */
  private LocalConnector connector(String name, FilterHolder filter) {
    LocalConnector connector = new LocalConnector(server);
    connector.setName(name);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    context.setVirtualHosts(List.of("@" + name));
    ServletHolder echo = new ServletHolder(new Echo());
    echo.setAsyncSupported(true);
    context.addServlet(echo, PATH);
    if (filter != null) {
      filter.setAsyncSupported(true);
      context.addFilter(filter, "/*", EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC));
    }
    Handler.Sequence handlers = server.getHandler() instanceof Handler.Sequence sequence
        ? sequence
        : new Handler.Sequence();
    handlers.addHandler(context);
    server.setHandler(handlers);
    return connector;
  }

  /** An empty 200. */
  static final class Echo extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) {
      resp.setStatus(200);
      resp.setContentLength(0);
    }
  }

  /** The thin filter: a listener from the limiter or 503; success after the chain. */
  static final class NetflixFilter implements Filter {
    private final Limiter<Void> limiter;

    NetflixFilter(Limiter<Void> limiter) {
      this.limiter = limiter;
    }

    @Override
    public void doFilter(ServletRequest request, ServletResponse response, FilterChain chain)
        throws IOException, ServletException {
      Optional<Limiter.Listener> listener = limiter.acquire(null);
      if (listener.isEmpty()) {
        ((HttpServletResponse) response).sendError(503);
        return;
      }
      try {
        chain.doFilter(request, response);
        listener.get().onSuccess();
      } catch (IOException | ServletException | RuntimeException e) {
        listener.get().onIgnore();
        throw e;
      }
    }
  }
}
