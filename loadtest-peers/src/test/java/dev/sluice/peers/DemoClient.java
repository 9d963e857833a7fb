package dev.sluice.peers;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/** A real HTTP client for one running service. */
final class DemoClient {

  private static final HttpClient CLIENT = HttpClient.newHttpClient();

  private final int port;

  DemoClient(int port) {
    this.port = port;
  }

  HttpResponse<String> send(String method, String path, String... headers) throws Exception {
    return CLIENT.send(request(method, path, headers), HttpResponse.BodyHandlers.ofString());
  }

  CompletableFuture<HttpResponse<String>> sendAsync(String method, String path, String... headers) {
    return CLIENT.sendAsync(request(method, path, headers), HttpResponse.BodyHandlers.ofString());
  }

  private HttpRequest request(String method, String path, String... headers) {
    HttpRequest.Builder request = HttpRequest.newBuilder(
            URI.create("http://127.0.0.1:" + port + path))
        .method(method, HttpRequest.BodyPublishers.noBody());
    for (int i = 0; i < headers.length; i += 2) {
      request.header(headers[i], headers[i + 1]);
    }
    return request.build();
  }
}
