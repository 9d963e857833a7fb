package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.testing.Seeds;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Many threads submit while another moves virtual time and answers arrive on the scheduler's
 * thread, some throttled: every record ends exactly once, none is sent while a copy of it is on the
 * wire, the concurrency bound holds, and the queue bound pushes back instead of losing a record.
 */
@Tag("stress")
class PacedClientStressTest {

  @Test
  void concurrentSubmittersNeverBreakTheBoundsOrLoseARecord() throws Exception {
    long seed = Seeds.seed();
    java.util.Random random = new java.util.Random(seed);
    VirtualTime time = new VirtualTime();
    int maxConcurrency = 1 + random.nextInt(16);
    Map<String, AtomicInteger> onTheWire = new ConcurrentHashMap<>();
    AtomicInteger inFlight = new AtomicInteger();
    AtomicInteger maxSeen = new AtomicInteger();
    AtomicInteger doubleSends = new AtomicInteger();
    Transport server = new Transport() {
      @Override
      @SuppressWarnings("unchecked")
      public <T> CompletableFuture<HttpResponse<T>> send(
          HttpRequest request, HttpResponse.BodyHandler<T> handler) {
        String id = request.uri().getQuery();
        if (onTheWire.computeIfAbsent(id, k -> new AtomicInteger()).incrementAndGet() > 1) {
          doubleSends.incrementAndGet();
        }
        maxSeen.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
        CompletableFuture<HttpResponse<T>> answer = new CompletableFuture<>();
        boolean throttled = Math.floorMod(id.hashCode() + System.identityHashCode(answer), 7) == 0;
        time.schedule(
            () -> {
              inFlight.decrementAndGet();
              onTheWire.get(id).decrementAndGet();
              answer.complete((HttpResponse<T>)
                  (throttled ? FakeResponse.of(request, 429) : FakeResponse.of(request, 200)));
            },
            Duration.ofMillis(1 + (id.length() % 5)).toNanos());
        return answer;
      }
    };
    PacedClient client = PacedClient.builder(server)
        .clock(time)
        .scheduler(time)
        .config(PacedClientConfig.custom()
            .pace(2_000, Duration.ofSeconds(1))
            .maxConcurrency(maxConcurrency)
            .maxQueue(50)
            .retryBudget(0.2, 50)
            .backoff(Duration.ofMillis(1), Duration.ofMillis(20))
            .build())
        .build();

    int threads = 4;
    int perThread = 250;
    List<CompletableFuture<HttpResponse<Void>>> results = new CopyOnWriteArrayList<>();
    AtomicInteger pushedBack = new AtomicInteger();
    CountDownLatch done = new CountDownLatch(threads);
    for (int t = 0; t < threads; t++) {
      int thread = t;
      new Thread(() -> {
            for (int i = 0; i < perThread; i++) {
              HttpRequest request = HttpRequest.newBuilder(
                      URI.create("http://s.test/r?" + thread + "-" + i))
                  .build();
              while (true) {
                try {
                  results.add(client.submit(request, HttpResponse.BodyHandlers.discarding()));
                  break;
                } catch (SubmissionRejectedException full) {
                  pushedBack.incrementAndGet();
                  Thread.onSpinWait();
                }
              }
            }
            done.countDown();
          })
          .start();
    }
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while ((done.getCount() > 0 || results.stream().anyMatch(f -> !f.isDone()))
        && System.nanoTime() < deadline) {
      time.advance(Duration.ofNanos(1 + random.nextInt(2_000_000)));
    }

    assertThat(results)
        .as("seed %d", seed)
        .hasSize(threads * perThread)
        .allMatch(CompletableFuture::isDone);
    assertThat(results).allMatch(f -> !f.isCompletedExceptionally());
    assertThat(doubleSends.get()).as("seed %d", seed).isZero();
    assertThat(maxSeen.get()).as("seed %d", seed).isLessThanOrEqualTo(maxConcurrency);
    assertThat(client.inFlight()).isZero();
    assertThat(client.queued()).isZero();
    assertThat(pushedBack.get()).isPositive(); // 1,000 records through a queue of 50
  }
}
