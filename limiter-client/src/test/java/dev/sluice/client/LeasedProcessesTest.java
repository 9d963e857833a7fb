package dev.sluice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Three uncoordinated processes (three clients, three Redis connections, no shared object) share a
 * 500 rps quota through 20 leased partitions of 25 rps, against a service whose Sluice rule takes
 * 500/s. They want 10, 6 and 8 partitions: 24 of 20, so one of them gets less than it asks. Each
 * uses its partitions at 98 % (the default headroom for arrival jitter).
 * Scaled for CI: leases of 1.5 s instead of 15 s, 3 s of traffic. The rate per partition and the
 * count per second are checked only when the machine carries the quota (a probe first); the quota
 * over the run, the service's own refusals and the leases always.
 */
@Tag("integration")
class LeasedProcessesTest {

  static final int QUOTA = 500;

  @TempDir
  Path dir;

  static final class ClientProcess {
    final String name;
    final PacedClient client;
    final PartitionLeases leases;
    final AtomicLong accepted = new AtomicLong();
    final AtomicLong throttled = new AtomicLong();
    double partitionSeconds;

    ClientProcess(String name, HttpClient http, RedisServer redis) {
      this.name = name;
      this.client = PacedClient.builder(http)
          .config(PacedClientConfig.custom()
              .pace(QUOTA, Duration.ofSeconds(1))
              .maxQueue(1_000)
              .build())
          .build();
      this.leases = PartitionLeases.builder(
              redis.uri(),
              PartitionLeasesConfig.custom("ingest")
                  .partitions(20, 25)
                  .leaseTime(Duration.ofMillis(1500))
                  .build())
          .owner(name)
          .pacing(client)
          .build();
    }
  }

  @Test
  // the feeder's answers are counted, and the test waits for those counts
  @SuppressWarnings("FutureReturnValueIgnored")
  void threeProcessesStayUnderTheQuotaTogetherAndWorkInProportionToTheirLeases() throws Exception {
    HttpClient http =
        HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    ScheduledExecutorService feeder = Executors.newSingleThreadScheduledExecutor();
    try (RedisServer redis = RedisServer.start();
        IngestServer server =
            IngestServer.start(dir, Map.of("shared", QUOTA, "probe", 1_000_000))) {
      double capacity = server.capacity(http, "probe", Duration.ofMillis(500));
      List<ClientProcess> processes = List.of(
          new ClientProcess("p10", http, redis),
          new ClientProcess("p6", http, redis),
          new ClientProcess("p8", http, redis));
      int[] wants = {10, 6, 8};
      AtomicLong ids = new AtomicLong();
      int[] maxHeldTogether = new int[1];
      long start = System.nanoTime();
      int startSecond = server.second();
      for (int i = 0; i < processes.size(); i++) {
        processes.get(i).leases.want(wants[i]);
      }
      long[] lastSample = {System.nanoTime()};
      // keeps every client's queue full (each always has work) and integrates the partitions held
      feeder.scheduleAtFixedRate(
          () -> {
            long now = System.nanoTime();
            double dt = (now - lastSample[0]) / 1e9;
            lastSample[0] = now;
            int together = 0;
            for (ClientProcess p : processes) {
              int held = p.leases.held();
              together += held;
              p.partitionSeconds += held * dt;
              while (p.client.queued() < 200) {
                p.client
                    .submit(
                        HttpRequest.newBuilder(
                                server.uri("shared", p.name + "-" + ids.incrementAndGet()))
                            .POST(HttpRequest.BodyPublishers.noBody())
                            .build(),
                        HttpResponse.BodyHandlers.discarding())
                    .thenAccept(
                        r -> (r.statusCode() == 200 ? p.accepted : p.throttled).incrementAndGet());
              }
            }
            maxHeldTogether[0] = Math.max(maxHeldTogether[0], together);
          },
          0,
          20,
          TimeUnit.MILLISECONDS);

      // real processes against a real server: run until ~3 s worth of the quota was accepted
      // (longer on a slow machine; the figures are per second and per partition-second)
      await()
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(20))
          .until(() ->
              processes.stream().mapToLong(p -> p.accepted.get()).sum() >= 3L * QUOTA * 95 / 100);
      feeder.shutdown();
      feeder.awaitTermination(5, TimeUnit.SECONDS);
      processes.forEach(p -> p.leases.want(0));
      processes.forEach(p -> p.client.close());
      await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> processes.stream().allMatch(p -> p.client.inFlight() == 0)); // last answers
      processes.forEach(p -> p.leases.close());

      int endSecond = server.second();
      double elapsedSeconds = (System.nanoTime() - start) / 1e9;
      System.out.printf("per second accepted:");
      for (int s = startSecond; s <= endSecond; s++) {
        System.out.printf(" %d", server.acceptedPerSecond.get(s));
      }
      System.out.printf("%nper second rejected:");
      for (int s = startSecond; s <= endSecond; s++) {
        System.out.printf(" %d", server.rejectedPerSecond.get(s));
      }
      System.out.println();
      for (ClientProcess p : processes) {
        System.out.printf(
            "%s: accepted %d, throttled %d, partition-seconds %.1f, %.1f per partition-second%n",
            p.name,
            p.accepted.get(),
            p.throttled.get(),
            p.partitionSeconds,
            p.accepted.get() / p.partitionSeconds);
      }
      System.out.printf(
          "most partitions held at once by all three: %d; run %.1f s; capacity %.0f/s, load %s%n",
          maxHeldTogether[0], elapsedSeconds, capacity, IngestServer.load());

      assertThat(maxHeldTogether[0]).isLessThanOrEqualTo(20);
      long received = 0;
      long rejected = 0;
      for (int s = startSecond; s <= endSecond; s++) {
        received += server.acceptedPerSecond.get(s) + server.rejectedPerSecond.get(s);
        rejected += server.rejectedPerSecond.get(s);
      }
      // the quota as the service enforces it: its own 500/s rule never had to refuse
      assertThat(rejected).isZero();
      // and as a count: over the whole run the clients sent no more than the quota allows
      assertThat(received).isLessThanOrEqualTo((long) Math.ceil(QUOTA * elapsedSeconds));
      // Per second, the server counts a request when it has answered it. On a machine that
      // carries the quota that is when it was sent; on one that does not, requests wait in the
      // server and a second's count holds some sent the second before, so the count per second is
      // the clients' pace only when the machine keeps up.
      if (capacity >= 1.5 * QUOTA) {
        for (int s = startSecond; s <= endSecond; s++) {
          assertThat(server.acceptedPerSecond.get(s) + server.rejectedPerSecond.get(s))
              .as("requests in second %d", s)
              .isLessThanOrEqualTo(QUOTA);
        }
      }
      for (ClientProcess p : processes) {
        // never more than its leases allow (a little slack: held is sampled every 20 ms)...
        assertThat(p.accepted.get() / p.partitionSeconds).as(p.name).isLessThanOrEqualTo(27.0);
        // ...and, when the machine keeps up, about what they allow
        if (capacity >= 1.5 * QUOTA) {
          assertThat(p.accepted.get() / p.partitionSeconds).as(p.name).isGreaterThanOrEqualTo(20.0);
        }
      }
    }
  }
}
