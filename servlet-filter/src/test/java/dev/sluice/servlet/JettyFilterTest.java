package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Tag;

/** The contract at the servlet filter in a real Jetty 12 (ee10) servlet container. */
@Tag("integration")
class JettyFilterTest extends ServletFilterContract {

  @Override
  HttpDoor.Starter starter() {
    return JettyFilterTest::start;
  }

  static HttpDoor start(
      SluiceProperties properties,
      VirtualTime time,
      int maxThreads,
      Supplier<String> work,
      Path scratch)
      throws Exception {
    MeterRegistry registry = new SimpleMeterRegistry();
    SluiceFilter.Builder b = SluiceFilter.builder().properties(properties).meterRegistry(registry);
    if (time != null) {
      b.clock(time).scheduler(time);
    }
    SluiceFilter filter = b.build();
    Server server = new Server(new QueuedThreadPool(maxThreads, 2));
    ServerConnector connector = new ServerConnector(server, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setShutdownIdleTimeout(10);
    server.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    ServletHolder app = new ServletHolder(new TestApp(work));
    app.setAsyncSupported(true);
    context.addServlet(app, "/*");
    // registered by the container's own start-up, as an application registers it
    context.addServletContainerInitializer((classes, ctx) -> {
      filter.register(ctx, "/*");
      filter.registerPages(ctx, "/sluice");
    });
    server.setHandler(context);
    server.start();
    String base = "http://127.0.0.1:" + connector.getLocalPort();
    return new HttpDoor() {
      @Override
      public String base() {
        return base;
      }

      @Override
      public ConcurrencyLimiter limiter(String name) {
        return filter.limiter(name).orElseThrow();
      }

      @Override
      public MeterRegistry registry() {
        return registry;
      }

      @Override
      public void stopAdmitting() {
        filter.shutdown();
      }

      @Override
      public void stop() throws Exception {
        server.stop();
      }
    };
  }
}
