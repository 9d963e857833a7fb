package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.config.SluiceConfigException;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterRegistration;
import jakarta.servlet.ServletContext;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.apache.catalina.Context;
import org.apache.catalina.LifecycleState;
import org.apache.catalina.Wrapper;
import org.apache.catalina.connector.Connector;
import org.apache.catalina.startup.Tomcat;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.eclipse.jetty.ee10.servlet.ServletHolder;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A filter the container makes from its class ({@code addFilter(name, SluiceFilter.class)}, as a
 * {@code web.xml} declares it): it reads its settings from the system properties when the
 * container initialises it, and a bad one stops the application from starting, naming key, value
 * and source.
 */
@Tag("integration")
class ContainerMadeFilterTest {

  @TempDir
  Path dir;

  private final CountDownLatch release = new CountDownLatch(1);
  private final CountDownLatch entered = new CountDownLatch(1);
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private final List<String> properties = new CopyOnWriteArrayList<>();
  private AutoCloseable server;

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    properties.forEach(System::clearProperty);
    if (server != null) {
      server.close();
    }
  }

  private void property(String key, String value) {
    properties.add(key);
    System.setProperty(key, value);
  }

  private String block() {
    entered.countDown();
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "done";
  }

  private static void addFilterByClass(ServletContext ctx) {
    FilterRegistration.Dynamic f = ctx.addFilter("sluice", SluiceFilter.class);
    f.setAsyncSupported(true);
    f.addMappingForUrlPatterns(
        EnumSet.of(DispatcherType.REQUEST, DispatcherType.ASYNC), false, "/*");
  }

  private CompletableFuture<HttpResponse<String>> get(String base, String path) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(base + path))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** Tomcat: the filter, made by the container, limits as the system properties say. */
  @Test
  void tomcatInitialisesTheFilterFromTheSystemProperties() throws Exception {
    property("sluice.limiters.work.path", "/api/work");
    property("sluice.limiters.work.max-concurrency", "1");
    property("sluice.limiters.work.max-queue", "0");
    Tomcat tomcat = tomcat();
    tomcat.start();
    String base = base(tomcat);

    limitsOneAtATime(base);
  }

  @Test
  void jettyInitialisesTheFilterFromTheSystemProperties() throws Exception {
    property("sluice.limiters.work.path", "/api/work");
    property("sluice.limiters.work.max-concurrency", "1");
    property("sluice.limiters.work.max-queue", "0");
    Server jetty = jetty();
    jetty.start();

    limitsOneAtATime(base(jetty));
  }

  private void limitsOneAtATime(String base) throws InterruptedException {
    CompletableFuture<HttpResponse<String>> running = get(base, "/api/work");
    assertThat(entered.await(20, TimeUnit.SECONDS)).isTrue();

    HttpResponse<String> refused = get(base, "/api/work").join();

    assertThat(refused.statusCode()).isEqualTo(429);
    assertThat(refused.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    assertThat(running).isNotDone();
    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
    assertThat(get(base, "/api/work").join().statusCode()).isEqualTo(200);
  }

  @Test
  void tomcatDoesNotStartTheApplicationWhenAPropertyIsBad() throws Exception {
    property("sluice.limiters.work.path", "/api/work");
    property("sluice.limiters.work.max-concurrency", "lots");
    List<LogRecord> logged = new CopyOnWriteArrayList<>();
    Handler capture = new Handler() {
      @Override
      public void publish(LogRecord r) {
        logged.add(r);
      }

      @Override
      public void flush() {}

      @Override
      public void close() {}
    };
    Logger catalina = Logger.getLogger("org.apache.catalina");
    catalina.addHandler(capture);
    Tomcat tomcat = tomcat();
    try {
      tomcat.start();
    } finally {
      catalina.removeHandler(capture);
    }

    // Tomcat logs the filter's failure and leaves the application stopped
    assertThat(logged)
        .map(LogRecord::getThrown)
        .filteredOn(SluiceConfigException.class::isInstance)
        .singleElement()
        .satisfies(e -> assertBadValueNamed(e));
    Context context = (Context) tomcat.getHost().findChild("");
    assertThat(context.getState()).isNotEqualTo(LifecycleState.STARTED);
    HttpResponse<String> r = get(base(tomcat), "/api/work").join();
    assertThat(r.statusCode()).as("nothing behind the filter is served").isEqualTo(404);
    assertThat(r.body()).doesNotContain("done");
    assertThat(release.getCount()).isEqualTo(1);
  }

  @Test
  void jettyDoesNotStartWhenAPropertyIsBad() throws Exception {
    property("sluice.limiters.work.path", "/api/work");
    property("sluice.limiters.work.max-concurrency", "lots");
    Server jetty = jetty();

    Throwable failed = catchThrowable(jetty::start);

    assertThat(failed).isInstanceOf(SluiceConfigException.class);
    assertBadValueNamed(failed);
    assertThat(jetty.isStarted()).isFalse();
    assertThat(((ServerConnector) jetty.getConnectors()[0]).isOpen())
        .as("the connector never accepts a request")
        .isFalse();
  }

  private static void assertBadValueNamed(Throwable e) {
    assertThat(e.getMessage())
        .contains("sluice.limiters.work.max-concurrency")
        .contains("'lots'")
        .contains("system property -Dsluice.limiters.work.max-concurrency");
  }

  private Tomcat tomcat() throws Exception {
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createDirectories(dir.resolve("tomcat")).toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", null);
    Wrapper app = Tomcat.addServlet(context, "app", new TestApp(this::block));
    app.setAsyncSupported(true);
    app.addMapping("/*");
    context.addServletContainerInitializer((classes, ctx) -> addFilterByClass(ctx), null);
    server = () -> {
      tomcat.stop();
      tomcat.destroy();
    };
    return tomcat;
  }

  private static String base(Tomcat tomcat) {
    return "http://127.0.0.1:" + tomcat.getConnector().getLocalPort();
  }

  private Server jetty() {
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty, 1, 1);
    connector.setHost("127.0.0.1");
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    ServletHolder app = new ServletHolder(new TestApp(this::block));
    app.setAsyncSupported(true);
    context.addServlet(app, "/*");
    context.addServletContainerInitializer((classes, ctx) -> addFilterByClass(ctx));
    jetty.setHandler(context);
    server = jetty::stop;
    return jetty;
  }

  private static String base(Server jetty) {
    return "http://127.0.0.1:" + ((ServerConnector) jetty.getConnectors()[0]).getLocalPort();
  }
}
