package dev.sluice.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpHeaders;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import javax.net.ssl.SSLSession;

/** A response with a status and headers, for the client's tests without a server. */
record FakeResponse<T>(HttpRequest request, int statusCode, HttpHeaders headers, T body)
    implements HttpResponse<T> {

  static <T> FakeResponse<T> of(HttpRequest request, int status, String... nameValues) {
    Map<String, List<String>> map = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
    for (int i = 0; i < nameValues.length; i += 2) {
      map.computeIfAbsent(nameValues[i], k -> new java.util.ArrayList<>()).add(nameValues[i + 1]);
    }
    return new FakeResponse<>(request, status, HttpHeaders.of(map, (a, b) -> true), null);
  }

  static HttpHeaders headers(String... nameValues) {
    return of(null, 200, nameValues).headers();
  }

  @Override
  public Optional<HttpResponse<T>> previousResponse() {
    return Optional.empty();
  }

  @Override
  public Optional<SSLSession> sslSession() {
    return Optional.empty();
  }

  @Override
  public URI uri() {
    return request.uri();
  }

  @Override
  public HttpClient.Version version() {
    return HttpClient.Version.HTTP_1_1;
  }
}
