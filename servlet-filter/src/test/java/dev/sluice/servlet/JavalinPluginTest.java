package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.javalin.SluicePlugin;
import dev.sluice.time.VirtualTime;
import io.javalin.Javalin;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.junit.jupiter.api.Tag;

/**
 * The same contract at the Javalin plugin: the two doors share their answers (sluice-http), and
 * this holds them to the same expectations.
 */
@Tag("integration")
class JavalinPluginTest extends HttpDoorContract {

  @Override
  HttpDoor.Starter starter() {
    return JavalinPluginTest::start;
  }

  static HttpDoor start(
      SluiceProperties properties,
      VirtualTime time,
      int maxThreads,
      Supplier<String> work,
      Path scratch) {
    MeterRegistry registry = new SimpleMeterRegistry();
    SluicePlugin plugin = new SluicePlugin(cfg -> {
      cfg.properties(properties).meterRegistry(registry);
      if (time != null) {
        cfg.clock(time).scheduler(time);
      }
    });
    Javalin app = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(plugin);
      config.jetty.threadPool = new QueuedThreadPool(maxThreads, 2);
      config.jetty.addConnector((jetty, http) -> {
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setShutdownIdleTimeout(10);
        return connector;
      });
      config.routes.get("/api/work", ctx -> ctx.result(work.get()));
      config.routes.get("/api/history/{id}", ctx -> ctx.result("history " + ctx.pathParam("id")));
      config.routes.get("/health", ctx -> ctx.result("up"));
      config.routes.get(
          "/sluice", ctx -> ctx.contentType("application/json").result(plugin.statusJson()));
    });
    app.start();
    String base = "http://127.0.0.1:" + app.port();
    return new HttpDoor() {
      @Override
      public String base() {
        return base;
      }

      @Override
      public ConcurrencyLimiter limiter(String name) {
        return plugin.limiter(name).orElseThrow();
      }

      @Override
      public MeterRegistry registry() {
        return registry;
      }

      @Override
      public void stopAdmitting() {
        throw new UnsupportedOperationException("the plugin stops admitting when Javalin stops");
      }

      @Override
      public void stop() {
        app.stop();
      }
    };
  }
}
