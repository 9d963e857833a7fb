package dev.sluice.loadtest.engine;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/** The JDK HTTP client, asynchronous, HTTP/1.1 (what the 32 maintenance hosts would use). */
public final class HttpTransport implements Transport, AutoCloseable {

  private final URI base;
  private final HttpClient client;
  private final ExecutorService executor;
  private final Duration timeout;

  public HttpTransport(URI base, Duration timeout) {
    this.base = base;
    this.timeout = timeout;
    // a cached pool: completions must never queue behind each other and distort latencies
    this.executor = Executors.newCachedThreadPool(r -> {
      Thread thread = new Thread(r, "loadtest-http");
      thread.setDaemon(true);
      return thread;
    });
    this.client = HttpClient.newBuilder()
        .version(HttpClient.Version.HTTP_1_1)
        .connectTimeout(Duration.ofSeconds(5))
        .executor(executor)
        .build();
  }

  @Override
  public CompletableFuture<Reply> send(Arrival request) {
    HttpRequest.Builder builder = HttpRequest.newBuilder(base.resolve(request.path()))
        .timeout(timeout)
        .method(request.method(), HttpRequest.BodyPublishers.noBody());
    request.headers().forEach(builder::header);
    return client
        .sendAsync(builder.build(), HttpResponse.BodyHandlers.ofString())
        .thenApply(response -> new Reply(
            response.statusCode(), response.headers().firstValue("Retry-After"), response.body()));
  }

  /** A plain GET for the samplers and the calibration. */
  public HttpResponse<String> get(String path) throws Exception {
    return client.send(
        HttpRequest.newBuilder(base.resolve(path))
            .timeout(Duration.ofSeconds(5))
            .GET()
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  public HttpClient client() {
    return client;
  }

  public URI base() {
    return base;
  }

  @Override
  public void close() {
    executor.shutdownNow();
  }
}
