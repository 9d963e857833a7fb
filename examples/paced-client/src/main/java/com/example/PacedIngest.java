package com.example;

import com.sun.net.httpserver.HttpServer;
import dev.sluice.client.PacedClient;
import dev.sluice.client.PacedClientConfig;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * 60 records into a service that takes 20 a second, through a paced client: it starts at its
 * ceiling (50 a second), learns the service's pace from its RateLimit-Policy header and the 429s'
 * Retry-After, and retries the refused records within its budget.
 */
public final class PacedIngest {

  public static void main(String[] args) throws Exception {
    HttpServer service = throttledService(20);
    URI ingest = URI.create("http://127.0.0.1:" + service.getAddress().getPort() + "/ingest");

    PacedClient client = PacedClient.of(HttpClient.newHttpClient(), PacedClientConfig.custom()
        .pace(50, Duration.ofSeconds(1)) // the ceiling: never faster, whatever the server says
        .maxConcurrency(8) // on the wire at once
        .maxAttempts(3)
        .retryBudget(0.2, 10) // retries <= 10 + 20% of requests
        .build());

    // First the naive way: every record at once, no pacing, no retry.
    HttpClient naive = HttpClient.newHttpClient();
    List<CompletableFuture<HttpResponse<String>>> naiveAnswers = new ArrayList<>();
    for (int i = 1; i <= 60; i++) {
      naiveAnswers.add(naive.sendAsync(record(ingest, i), HttpResponse.BodyHandlers.ofString()));
    }
    Map<Integer, Integer> naiveByStatus = new TreeMap<>();
    naiveAnswers.forEach(a -> naiveByStatus.merge(a.join().statusCode(), 1, Integer::sum));
    System.out.printf("naive client, answers by status: %s%n", naiveByStatus);
    Thread.sleep(1000); // let the service's second end
    sends.set(0);
    refused.set(0);

    long start = System.nanoTime();
    List<CompletableFuture<HttpResponse<String>>> answers = new ArrayList<>();
    for (int i = 1; i <= 60; i++) {
      answers.add(client.submit(record(ingest, i), HttpResponse.BodyHandlers.ofString()));
    }
    Map<Integer, Integer> byStatus = new TreeMap<>();
    for (CompletableFuture<HttpResponse<String>> answer : answers) {
      byStatus.merge(answer.join().statusCode(), 1, Integer::sum);
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    client.close();
    service.stop(0);

    System.out.printf("paced client, answers by status: %s%n", byStatus);
    System.out.printf("the service refused %d sends (429); the client sent %d in all%n",
        refused.get(), sends.get());
    System.out.printf("pace learnt: %.0f per second; %.1f s for 60 records%n",
        client.pacePerSecond(), seconds);
  }

  private static HttpRequest record(URI ingest, int id) {
    return HttpRequest.newBuilder(ingest)
        .POST(HttpRequest.BodyPublishers.ofString("{\"id\":" + id + "}"))
        .build();
  }

  private static final AtomicInteger sends = new AtomicInteger();
  private static final AtomicInteger refused = new AtomicInteger();

  /** A service that takes {@code perSecond} requests a second and says so in its headers. */
  private static HttpServer throttledService(int perSecond) throws Exception {
    HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    AtomicLong window = new AtomicLong();
    AtomicInteger inWindow = new AtomicInteger();
    server.createContext("/ingest", exchange -> {
      sends.incrementAndGet();
      long second = System.nanoTime() / 1_000_000_000L;
      if (window.getAndSet(second) != second) {
        inWindow.set(0);
      }
      exchange.getRequestBody().readAllBytes();
      exchange.getResponseHeaders().add("RateLimit-Policy", "\"ingest\";q=" + perSecond + ";w=1");
      int status = 200;
      if (inWindow.incrementAndGet() > perSecond) {
        refused.incrementAndGet();
        status = 429;
        exchange.getResponseHeaders().add("Retry-After", "1");
      }
      byte[] body = (status == 200 ? "stored\n" : "slow down\n").getBytes(StandardCharsets.UTF_8);
      exchange.sendResponseHeaders(status, body.length);
      exchange.getResponseBody().write(body);
      exchange.close();
    });
    server.start();
    return server;
  }
}
