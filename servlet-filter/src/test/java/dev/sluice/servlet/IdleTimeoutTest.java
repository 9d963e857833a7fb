package dev.sluice.servlet;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.concurrency.ConcurrencySnapshot;
import dev.sluice.config.SluiceProperties;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.catalina.Context;
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
 * A container's idle timeout (Jetty's connector {@code idleTimeout}, Tomcat's {@code
 * connectionTimeout} and {@code keepAliveTimeout}) shorter than a request's wait in the queue: the
 * container does not end the suspended request; the limiter's queue timeout does.
 */
@Tag("integration")
class IdleTimeoutTest {

  private static final Duration QUEUE_TIMEOUT = Duration.ofSeconds(3);

  @TempDir
  Path dir;

  private final CountDownLatch release = new CountDownLatch(1);
  private final HttpClient client = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(5))
      .build();
  private AutoCloseable server;
  private SluiceFilter filter;

  @AfterEach
  void stop() throws Exception {
    release.countDown();
    if (server != null) {
      server.close();
    }
  }

  private String block() {
    try {
      release.await(20, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    return "done";
  }

  private SluiceFilter filter() {
    return SluiceFilter.builder()
        .properties(SluiceProperties.builder()
            .env(Map.of())
            .system(Map.of(
                "sluice.limiters.work.path", "/api/work",
                "sluice.limiters.work.max-concurrency", "1",
                "sluice.limiters.work.max-queue", "1",
                "sluice.limiters.work.queue-timeout", QUEUE_TIMEOUT.toMillis() + "ms"))
            .build())
        .build();
  }

  private CompletableFuture<HttpResponse<String>> get(String base) {
    return client.sendAsync(
        HttpRequest.newBuilder(URI.create(base + "/api/work"))
            .timeout(Duration.ofSeconds(20))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private ConcurrencySnapshot work() {
    return filter.limiter("work").orElseThrow().snapshot();
  }

  @Test
  void jettysIdleTimeoutDoesNotEndAQueuedRequest() throws Exception {
    filter = filter();
    Server jetty = new Server();
    ServerConnector connector = new ServerConnector(jetty, 1, 1);
    connector.setHost("127.0.0.1");
    connector.setIdleTimeout(1000);
    jetty.addConnector(connector);
    ServletContextHandler context = new ServletContextHandler();
    ServletHolder app = new ServletHolder(new TestApp(this::block));
    app.setAsyncSupported(true);
    context.addServlet(app, "/*");
    context.addServletContainerInitializer((classes, ctx) -> filter.register(ctx, "/*"));
    jetty.setHandler(context);
    server = jetty::stop;
    jetty.start();
    idleTimeoutLeavesTheQueuedRequestToTheQueue("http://127.0.0.1:" + connector.getLocalPort());
  }

  @Test
  void tomcatsConnectionTimeoutDoesNotEndAQueuedRequest() throws Exception {
    filter = filter();
    Tomcat tomcat = new Tomcat();
    tomcat.setBaseDir(Files.createDirectories(dir.resolve("tomcat")).toString());
    Connector connector = new Connector();
    connector.setPort(0);
    connector.setProperty("address", "127.0.0.1");
    connector.setProperty("connectionTimeout", "1000");
    connector.setProperty("keepAliveTimeout", "1000");
    tomcat.setConnector(connector);
    Context context = tomcat.addContext("", null);
    Wrapper app = Tomcat.addServlet(context, "app", new TestApp(this::block));
    app.setAsyncSupported(true);
    app.addMapping("/*");
    context.addServletContainerInitializer((classes, ctx) -> filter.register(ctx, "/*"), null);
    server = () -> {
      tomcat.stop();
      tomcat.destroy();
    };
    tomcat.start();
    idleTimeoutLeavesTheQueuedRequestToTheQueue("http://127.0.0.1:" + connector.getLocalPort());
  }

  /**
   * The running request (in the servlet, writing nothing) and the queued one (suspended) both
   * outlast the connection's 1 s idle timeout: the queued one leaves at its 3 s queue timeout with
   * the 504 answer, counted a timeout, and no permit is lost.
   */
  private void idleTimeoutLeavesTheQueuedRequestToTheQueue(String base) throws Exception {
    CompletableFuture<HttpResponse<String>> running = get(base);
    await().until(() -> work().inFlight() == 1);
    long sent = System.nanoTime();
    CompletableFuture<HttpResponse<String>> queued = get(base);

    HttpResponse<String> answered = queued.join();
    Duration waited = Duration.ofNanos(System.nanoTime() - sent);

    assertThat(answered.statusCode()).isEqualTo(504);
    assertThat(answered.headers().firstValue("Content-Type").orElse(""))
        .startsWith("application/problem+json");
    assertThat(answered.body()).contains("https://sluice.dev/problems/queue-timeout");
    assertThat(waited).as("queued past the idle timeout").isGreaterThanOrEqualTo(QUEUE_TIMEOUT);
    assertThat(work().rejectedQueueTimeout()).isEqualTo(1);
    assertThat(work().cancelled()).isZero();
    assertThat(work().queued()).isZero();
    assertThat(running).as("the running request is not ended either").isNotDone();
    release.countDown();
    assertThat(running.join().statusCode()).isEqualTo(200);
    await().until(() -> work().inFlight() == 0);
    assertThat(get(base).join().statusCode()).as("no permit lost").isEqualTo(200);
  }
}
