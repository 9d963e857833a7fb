package dev.sluice.client;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;

/** Sends one request; the JDK client in production, a scripted server in virtual-time tests. */
interface Transport {

  <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, HttpResponse.BodyHandler<T> handler);

  static Transport of(HttpClient http) {
    return new Transport() {
      @Override
      public <T> CompletableFuture<HttpResponse<T>> send(
          HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        return http.sendAsync(request, handler);
      }
    };
  }
}
