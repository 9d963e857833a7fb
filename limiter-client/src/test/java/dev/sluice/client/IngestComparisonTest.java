package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The pattern's case over real HTTP: 10,000 records into a service whose Sluice rate rule takes
 * 2,000 per second (token bucket, burst 2,000), sent by the paced client at 2,000/s (~5 s by
 * nature). Beside it, scaled down for CI, the naive client (64 connections, every rejected record
 * sent again at once) pushes 3,000 records into a lane of 1,000/s; the full-size naive run is the
 * load test's ({@code --scenario ingest}). A machine that cannot carry 3,000 requests a second (a
 * probe says) is no test of pacing: the runs then shrink to ~2 s of what it carries and times are not
 * checked, so the test stays short on a machine shared with much else.
 */
@Tag("integration")
class IngestComparisonTest {

  static final int RECORDS = 10_000;
  static final int PER_SECOND = 2_000;
  static final int NAIVE_RECORDS = 3_000;
  static final int NAIVE_PER_SECOND = 1_000;

  @TempDir
  Path dir;

  @Test
  void pacedClientSendsEachRecordOnceInAboutTheIdealTimeWhereTheNaiveOneFloodsTheService()
      throws Exception {
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try (IngestServer server = IngestServer.start(
        dir, Map.of("naive", NAIVE_PER_SECOND, "paced", PER_SECOND, "warm", 1_000_000))) {
      double capacity = server.capacity(http, "warm", Duration.ofSeconds(1));
      boolean fullSize = capacity >= 1.5 * PER_SECOND;
      // about two seconds of what the machine carries, so a crowded machine keeps the test short
      int records = fullSize ? RECORDS : (int) Math.max(200, Math.min(1_000, 2 * capacity));
      int naiveRecords = fullSize ? NAIVE_RECORDS : records / 2;
      long acceptedBefore = server.accepted.get();

      NaiveIngest naive = new NaiveIngest();
      long naiveStart = System.nanoTime();
      naive
          .run(http, naiveRecords, 64, i -> server.uri("naive", "n" + i))
          .get(60, TimeUnit.SECONDS);
      double naiveSeconds = (System.nanoTime() - naiveStart) / 1e9;

      AtomicLong sends = new AtomicLong();
      PacedClient client = PacedClient.builder(http)
          .config(PacedClientConfig.custom()
              .pace(PER_SECOND, Duration.ofSeconds(1))
              .maxQueue(records)
              .maxConcurrency(64)
              .build())
          .listener(new ClientListener() {
            @Override
            public void onSend() {
              sends.incrementAndGet();
            }
          })
          .build();
      // the naive run emptied the bucket of its own lane only; start in the server's next second
      // so the second-by-second counts of the two runs do not share a second
      int naiveLastSecond = server.second();
      await()
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> server.second() > naiveLastSecond);
      long rejectedBefore = server.rejected.get();
      long pacedStart = System.nanoTime();
      List<CompletableFuture<HttpResponse<Void>>> results = new ArrayList<>(records);
      for (int i = 0; i < records; i++) {
        results.add(client.submit(
            HttpRequest.newBuilder(server.uri("paced", "p" + i))
                .POST(HttpRequest.BodyPublishers.noBody())
                .build(),
            HttpResponse.BodyHandlers.discarding()));
      }
      CompletableFuture.allOf(results.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      double pacedSeconds = (System.nanoTime() - pacedStart) / 1e9;
      client.close();

      System.out.printf(
          "naive: %d records into %d/s, %d sends, %d rejected, %.2f s%n",
          naiveRecords, NAIVE_PER_SECOND, naive.sends.get(), naive.rejected.get(), naiveSeconds);
      System.out.printf(
          "paced: %d records into %d/s, %d sends, %d rejected, %.2f s (capacity %.0f/s, load %s)%n",
          records,
          PER_SECOND,
          sends.get(),
          server.rejected.get() - rejectedBefore,
          pacedSeconds,
          capacity,
          IngestServer.load());

      assertThat(results).allMatch(f -> f.join().statusCode() == 200);
      assertThat(sends.get()).isLessThanOrEqualTo(records + records / 100);
      // never faster than the pace: the last record leaves (N - 1) / rate after the first
      assertThat(pacedSeconds).isGreaterThanOrEqualTo((records - 1.0) / PER_SECOND);
      if (fullSize) {
        assertThat(pacedSeconds).isLessThanOrEqualTo(5.5);
        assertThat(naive.rejected.get()).isPositive();
      } else {
        // a machine that cannot carry 2,000 requests a second is not a test of pacing
        System.out.printf(
            "the machine carried only %.0f requests/s (load %s): time bound not checked%n",
            capacity, IngestServer.load());
      }
      assertThat(server.accepted.get() - acceptedBefore).isEqualTo((long) naiveRecords + records);
      assertThat(server.duplicates()).isZero();
    }
  }
}
