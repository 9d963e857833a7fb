package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.config.SluiceProperties;
import dev.sluice.time.VirtualTime;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Supplier;
import org.apache.catalina.Context;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.junit.jupiter.api.Tag;

/** The contract at the servlet filter in a real embedded Tomcat 11. */
@Tag("integration")
class TomcatFilterTest extends ServletFilterContract {

  @Override
  HttpDoor.Starter starter() {
    return TomcatFilterTest::start;
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
    Path baseDir = Files.createDirectories(scratch.resolve("tomcat"));
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(baseDir.toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("maxThreads", Integer.toString(maxThreads));
    connector.setProperty("minSpareThreads", "1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", null);
    Wrapper app = Tomcat.addServlet(context, "app", new TestApp(work));
    app.setAsyncSupported(true);
    app.addMapping("/*");
    // registered by the container's own start-up, as an application registers it
    context.addServletContainerInitializer(
        (classes, ctx) -> {
          filter.register(ctx, "/*");
          filter.registerPages(ctx, "/sluice");
        },
        null);
    tomcat.start();
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
        tomcat.stop();
        tomcat.destroy();
      }
    };
  }
}
