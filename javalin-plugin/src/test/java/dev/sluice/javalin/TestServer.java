package dev.sluice.javalin;

import io.javalin.Javalin;
import io.javalin.config.JavalinConfig;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.ServerConnector;

/** A Javalin app with the plugin on a random port, and a JDK HTTP client pointed at it. */
final class TestServer implements AutoCloseable {

  final Javalin app;
  final SluicePlugin plugin;
  final HttpClient client;
  final String base;

  private TestServer(Javalin app, SluicePlugin plugin) {
    this.app = app;
    this.plugin = plugin;
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .build();
    this.base = "http://127.0.0.1:" + app.port();
  }

  static TestServer start(
      Consumer<SluiceConfig> sluice, BiConsumer<JavalinConfig, SluicePlugin> app) {
    SluicePlugin plugin = new SluicePlugin(sluice);
    Javalin javalin = Javalin.create(config -> {
      config.startup.showJavalinBanner = false;
      config.registerPlugin(plugin);
      config.routes.get("/health", ctx -> ctx.result("up"));
      // a graceful stop waits for idle keep-alive connections to time out: keep that short here
      config.jetty.addConnector((jetty, http) -> {
        ServerConnector connector = new ServerConnector(jetty, new HttpConnectionFactory(http));
        connector.setHost("127.0.0.1");
        connector.setShutdownIdleTimeout(10);
        return connector;
      });
      app.accept(config, plugin);
    });
    javalin.start();
    return new TestServer(javalin, plugin);
  }

  HttpResponse<String> get(String path, String... headers) {
    return getAsync(path, headers).join();
  }

  CompletableFuture<HttpResponse<String>> getAsync(String path, String... headers) {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(20));
    if (headers.length > 0) {
      b.headers(headers);
    }
    return client.sendAsync(b.GET().build(), HttpResponse.BodyHandlers.ofString());
  }

  @Override
  public void close() {
    app.stop();
  }
}
