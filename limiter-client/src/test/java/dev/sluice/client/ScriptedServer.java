package dev.sluice.client;

import dev.sluice.time.VirtualTime;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;

/**
 * A server in virtual time: records when each request arrived and answers it with the script's
 * response after {@code latencyNanos} (0: at once, on the sending thread).
 */
final class ScriptedServer implements Transport {

  private final VirtualTime time;
  private final long latencyNanos;
  private final BiFunction<HttpRequest, Integer, FakeResponse<?>> script;
  final List<Long> arrivals = new ArrayList<>();
  int maxInFlight;
  private int inFlight;

  ScriptedServer(
      VirtualTime time,
      long latencyNanos,
      BiFunction<HttpRequest, Integer, FakeResponse<?>> script) {
    this.time = time;
    this.latencyNanos = latencyNanos;
    this.script = script;
  }

  static ScriptedServer accepting(VirtualTime time, long latencyNanos) {
    return new ScriptedServer(time, latencyNanos, (request, n) -> FakeResponse.of(request, 200));
  }

  @Override
  @SuppressWarnings("unchecked")
  public synchronized <T> CompletableFuture<HttpResponse<T>> send(
      HttpRequest request, HttpResponse.BodyHandler<T> handler) {
    int n = arrivals.size();
    arrivals.add(time.nanoTime());
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    HttpResponse<T> response = (HttpResponse<T>) script.apply(request, n);
    CompletableFuture<HttpResponse<T>> answer = new CompletableFuture<>();
    Runnable complete = () -> {
      synchronized (this) {
        inFlight--;
      }
      answer.complete(response);
    };
    if (latencyNanos == 0) {
      inFlight--;
      return CompletableFuture.completedFuture(response);
    }
    time.schedule(complete, latencyNanos);
    return answer;
  }

  synchronized int count() {
    return arrivals.size();
  }
}
