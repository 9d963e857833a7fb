package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.store.RateRequest;
import io.lettuce.core.cluster.SlotHash;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis Cluster of three masters moves the slots of a live rate key and of a live lease set to
 * another master (CLUSTER SETSLOT IMPORTING / MIGRATING, MIGRATE key by key, SETSLOT NODE) while
 * two nodes decide and take leases on them. During a migration a script whose keys are split
 * between the two masters is refused (TRYAGAIN) and one whose keys have all moved is redirected
 * (ASK): neither may reach a caller, Redis must not count as down for them (a refused script is
 * sent again), and the limits must hold.
 */
@Tag("integration")
class ClusterReshardTest {

  private static final int RATE_LIMIT = 30;
  private static final int MAX_JOBS = 3;
  private static final int NODES = 2;

  @TempDir
  Path dir;

  private final List<RedisServer> masters = new ArrayList<>();
  // calls the callers have made: a migration step waits for some before the next key moves
  private final AtomicLong callsMade = new AtomicLong();

  @AfterEach
  void stop() {
    masters.forEach(RedisServer::close);
  }

  @Test
  // Thread.yield() is the job: the permit is held while the other callers run
  @SuppressWarnings("ThreadPriorityCheck")
  void movingTheSlotsOfLiveKeysSurfacesNothingAndKeepsTheLimits() throws Exception {
    startCluster();
    String limiter = "reshard-jobs";
    RateRequest request = new RateRequest(
        "reshard",
        "account-1",
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(RATE_LIMIT, Duration.ofHours(1)),
        1);
    String rateKey = KeyLayout.rate("reshard", "account-1", Algorithm.TOKEN_BUCKET);
    String leaseKey = KeyLayout.permits(limiter);

    try (Nodes nodes = new Nodes()) {
      URI uri = URI.create("redis://127.0.0.1:" + masters.get(0).port() + "?cluster=true");
      List<RedisStores> stores = new ArrayList<>();
      for (int i = 0; i < NODES; i++) {
        stores.add(nodes.open(uri, Duration.ofMillis(200), NODES, FailurePolicy.LOCAL));
      }
      AtomicBoolean stop = new AtomicBoolean();
      AtomicLong admitted = new AtomicLong();
      AtomicInteger running = new AtomicInteger();
      AtomicInteger mostRunning = new AtomicInteger();
      AtomicBoolean leftUp = new AtomicBoolean();
      ExecutorService callers = Executors.newFixedThreadPool(NODES * 4);
      List<Future<?>> calls = new ArrayList<>();
      for (RedisStores node : stores) {
        for (int t = 0; t < 4; t++) {
          calls.add(callers.submit(() -> {
            while (!stop.get()) {
              if (Nodes.decide(node, request, Duration.ofSeconds(3)).allowed()) {
                admitted.incrementAndGet();
              }
              callsMade.incrementAndGet();
              if (node.state() != RedisState.UP) {
                leftUp.set(true);
              }
              Optional<PermitLease> lease = node.permits()
                  .tryAcquire(limiter, MAX_JOBS, Duration.ofSeconds(30))
                  .toCompletableFuture()
                  .get(3, TimeUnit.SECONDS);
              if (lease.isPresent()) {
                mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
                Thread.yield(); // the job: held while the other callers run
                running.decrementAndGet();
                lease.get().release().toCompletableFuture().get(3, TimeUnit.SECONDS);
              }
            }
            return null;
          }));
        }
      }
      try {
        await("the rate key and the lease set are live")
            .atMost(Duration.ofSeconds(10))
            .until(() ->
                "string".equals(owner(rateKey).command("TYPE", rateKey)) && mostRunning.get() > 0);

        RedisServer rateFrom = owner(rateKey);
        RedisServer rateTo = other(rateFrom);
        migrate(SlotHash.getSlot(rateKey), rateFrom, rateTo);
        RedisServer leaseFrom = owner(leaseKey);
        RedisServer leaseTo = other(leaseFrom);
        migrate(SlotHash.getSlot(leaseKey), leaseFrom, leaseTo);

        assertThat(rateFrom.command("TYPE", rateKey)).as("moved away").startsWith("MOVED");
        assertThat(rateTo.command("TYPE", rateKey)).isEqualTo("string");
        // the callers go on for a while on the new owners (Lettuce follows MOVED, then the map)
        long after = admitted.get();
        await().pollDelay(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2)).until(() -> true);
        stop.set(true);
        for (Future<?> call : calls) {
          call.get(10, TimeUnit.SECONDS); // an exception a caller saw fails the test here
        }
        System.out.printf(
            "resharding mid-run: %d admitted for a limit of %d (share %d), %d of "
                + "them after the move; at most %d jobs at once for a limit of %d (share %d); "
                + "degraded decisions %d and %d%n",
            admitted.get(),
            RATE_LIMIT,
            RATE_LIMIT / NODES,
            admitted.get() - after,
            mostRunning.get(),
            MAX_JOBS,
            MAX_JOBS / NODES,
            stores.get(0).degradedDecisions(),
            stores.get(1).degradedDecisions());
        assertThat(leftUp).as("Redis counted as down during the move").isFalse();
        assertThat(admitted.get()).isLessThanOrEqualTo(RATE_LIMIT + RATE_LIMIT / NODES);
        assertThat(mostRunning.get()).isLessThanOrEqualTo(MAX_JOBS + MAX_JOBS / NODES);
        await("every lease back")
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> "0".equals(leaseTo.command("ZCARD", leaseKey)));
      } finally {
        stop.set(true);
        callers.shutdownNow();
      }
    }
  }

  private void startCluster() throws Exception {
    RedisServer.startCluster(dir, masters);
  }

  /** The master that owns the slot of {@code key} (the others answer MOVED). */
  private RedisServer owner(String key) {
    return masters.stream()
        .filter(m -> !m.command("TYPE", key).startsWith("MOVED"))
        .findFirst()
        .orElseThrow();
  }

  private RedisServer other(RedisServer master) {
    return masters.get((masters.indexOf(master) + 1) % masters.size());
  }

  /**
   * Moves {@code slot} from {@code from} to {@code to} as {@code redis-cli --cluster reshard}
   * does, one key at a time so that callers run between the moves.
   */
  private void migrate(int slot, RedisServer from, RedisServer to) throws InterruptedException {
    String s = Integer.toString(slot);
    assertThat(to.command("CLUSTER", "SETSLOT", s, "IMPORTING", from.command("CLUSTER", "MYID")))
        .isEqualTo("OK");
    assertThat(from.command("CLUSTER", "SETSLOT", s, "MIGRATING", to.command("CLUSTER", "MYID")))
        .isEqualTo("OK");
    // scripts may create keys on the old owner while some of the slot's keys are still there
    for (int round = 0; round < 100; round++) {
      String keys = from.command("CLUSTER", "GETKEYSINSLOT", s, "10");
      if (keys == null || keys.isEmpty()) {
        break;
      }
      for (String key : Arrays.asList(keys.split("\n"))) {
        String moved =
            from.command("MIGRATE", "127.0.0.1", Integer.toString(to.port()), key, "0", "5000");
        assertThat(moved).as("MIGRATE %s", key).isIn("OK", "NOKEY");
        // callers run against a half-moved slot: a few calls of theirs before the next key moves
        long seen = callsMade.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> callsMade.get() >= seen + 8);
      }
    }
    String owner = to.command("CLUSTER", "MYID");
    // the new owner first, then the old one (which then answers MOVED), then the rest
    List<RedisServer> order = new ArrayList<>(List.of(to, from));
    masters.stream().filter(m -> m != to && m != from).forEach(order::add);
    for (RedisServer master : order) {
      assertThat(master.command("CLUSTER", "SETSLOT", s, "NODE", owner)).isEqualTo("OK");
    }
  }
}
