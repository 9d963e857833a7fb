package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two processors drain one durable buffer into a 500/s service at their leased pace; one is killed
 * mid-run. Every record must reach the service; the redelivered ones are counted. Scaled for CI:
 * 600 records, leases of 1.5 s, records claimable after 2 s pending.
 */
@Tag("integration")
class ProcessorCrashTest {

  static final int RECORDS = 600;

  @TempDir
  Path dir;

  private static BufferProcessor processor(
      RedisServer redis,
      IngestServer server,
      PacedClient client,
      PartitionLeases leases,
      String name) {
    return BufferProcessor.builder(
            redis.uri(),
            "ingest",
            client,
            (id, record) -> HttpRequest.newBuilder(server.uri("buffered", id))
                .POST(HttpRequest.BodyPublishers.ofString(record))
                .build())
        .consumer(name)
        .leases(leases, 10)
        .maxOutstanding(50)
        .claimIdle(Duration.ofSeconds(2))
        .build();
  }

  @Test
  void killingAProcessorMidRunLosesNoRecordAndTheDuplicatesAreCounted() throws Exception {
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    try (RedisServer redis = RedisServer.start();
        IngestServer server = IngestServer.start(dir, Map.of("buffered", 500));
        DurableBuffer buffer = DurableBuffer.open(redis.uri(), "ingest")) {
      List<CompletableFuture<String>> appended = new ArrayList<>();
      for (int i = 0; i < RECORDS; i++) {
        appended.add(buffer.append("record-" + i));
      }
      List<String> ids = new ArrayList<>();
      for (CompletableFuture<String> id : appended) {
        ids.add(id.get(10, TimeUnit.SECONDS));
      }
      PartitionLeasesConfig quota = PartitionLeasesConfig.custom("ingest")
          .partitions(20, 25)
          .leaseTime(Duration.ofMillis(1500))
          .build();
      PacedClient clientA =
          PacedClient.builder(http).config(PacedClientConfig.ofDefaults()).build();
      PacedClient clientB =
          PacedClient.builder(http).config(PacedClientConfig.ofDefaults()).build();
      PartitionLeases leasesA =
          PartitionLeases.builder(redis.uri(), quota).owner("a").pacing(clientA).build();
      PartitionLeases leasesB =
          PartitionLeases.builder(redis.uri(), quota).owner("b").pacing(clientB).build();
      BufferProcessor a = processor(redis, server, clientA, leasesA, "a").start();
      BufferProcessor b = processor(redis, server, clientB, leasesB, "b").start();

      await().atMost(Duration.ofSeconds(60)).until(() -> a.delivered() >= 100);
      a.crash();
      leasesA.abandon();
      clientA.close();
      long beforeKill = a.delivered();

      // ~2 s on an idle machine; the bound is for a machine shared with much else
      try {
        await()
            .atMost(Duration.ofMinutes(2))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> buffer.length() == 0 && buffer.pending() == 0);
      } catch (org.awaitility.core.ConditionTimeoutException e) {
        throw new AssertionError(
            String.format(
                "not drained: length %d, pending %d; b delivered %d, claimed %d, "
                    + "failed %d, outstanding %d; b holds %d partitions; client b queued %d, in flight %d, pace %.0f",
                buffer.length(),
                buffer.pending(),
                b.delivered(),
                b.claimed(),
                b.failed(),
                b.outstanding(),
                leasesB.held(),
                clientB.queued(),
                clientB.inFlight(),
                clientB.pacePerSecond()),
            e);
      }
      b.close();
      leasesB.close();
      clientB.close();

      long missing =
          ids.stream().filter(id -> !server.acceptedById.containsKey(id)).count();
      System.out.printf(
          "records %d: delivered by a %d (killed), by b %d; claimed by a %d, by b %d; accepted "
              + "at the service %d, duplicates %d, missing %d (load %s)%n",
          RECORDS,
          beforeKill,
          b.delivered(),
          a.claimed(),
          b.claimed(),
          server.accepted.get(),
          server.duplicates(),
          missing,
          IngestServer.load());
      assertThat(missing).isZero();
      assertThat(server.accepted.get()).isEqualTo(RECORDS + server.duplicates());
      // every duplicate is a record some processor claimed (a's unacknowledged ones, claimed by b;
      // on a slow machine also records that waited past claimIdle in a live processor's client)
      assertThat(a.claimed() + b.claimed()).isGreaterThanOrEqualTo(server.duplicates());
      assertThat(b.claimed()).isPositive();
    }
  }
}
