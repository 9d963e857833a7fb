package dev.sluice.client;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntFunction;

/**
 * The pattern's naive caller: {@code workers} connections each send the next record and, when it is
 * rejected, send it again at once, until every record is in. The yardstick for the paced client.
 */
final class NaiveIngest {

  final AtomicLong sends = new AtomicLong();
  final AtomicLong rejected = new AtomicLong();

  /** Sends every record; completes when all are accepted (or the target gives null: stop). */
  CompletableFuture<Void> run(HttpClient http, int records, int workers, IntFunction<URI> target) {
    AtomicInteger next = new AtomicInteger();
    CompletableFuture<?>[] lanes = new CompletableFuture<?>[workers];
    for (int w = 0; w < workers; w++) {
      lanes[w] = worker(http, next, records, target);
    }
    return CompletableFuture.allOf(lanes);
  }

  private CompletableFuture<Void> worker(
      HttpClient http, AtomicInteger next, int records, IntFunction<URI> target) {
    int record = next.getAndIncrement();
    URI uri = record >= records ? null : target.apply(record);
    if (uri == null) {
      return CompletableFuture.completedFuture(null);
    }
    return until(http, uri).thenCompose(ok -> worker(http, next, records, target));
  }

  private CompletableFuture<Void> until(HttpClient http, URI uri) {
    sends.incrementAndGet();
    return http.sendAsync(
            HttpRequest.newBuilder(uri)
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding())
        .thenCompose(response -> {
          if (response.statusCode() == 200) {
            return CompletableFuture.completedFuture(null);
          }
          rejected.incrementAndGet();
          return until(http, uri);
        });
  }
}
