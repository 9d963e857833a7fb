package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Global concurrency permits as leases in Redis. */
@Tag("integration")
class PermitLeaseTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private Nodes nodes;
  private String limiter;

  @BeforeEach
  void open() {
    nodes = new Nodes();
    limiter = "transcode-" + UUID.randomUUID();
  }

  @AfterEach
  void close() {
    nodes.close();
  }

  private RedisStores node() {
    return nodes.open(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY);
  }

  private static Optional<PermitLease> take(
      RedisStores node, String limiter, int max, Duration lease) {
    return node.permits().tryAcquire(limiter, max, lease).toCompletableFuture().join();
  }

  private long held() {
    return Long.parseLong(REDIS.server().command("ZCARD", KeyLayout.permits(limiter)));
  }

  @Test
  void nodesRacingForPermitsNeverHoldMoreThanTheMaximum() throws Exception {
    List<RedisStores> cluster = List.of(node(), node(), node());
    ConcurrentLinkedQueue<PermitLease> granted = new ConcurrentLinkedQueue<>();
    ExecutorService threads = Executors.newFixedThreadPool(12);
    try {
      List<Future<?>> running = new ArrayList<>();
      for (int t = 0; t < 12; t++) {
        RedisStores node = cluster.get(t % 3);
        running.add(threads.submit(() -> {
          for (int i = 0; i < 10; i++) {
            take(node, limiter, 5, Duration.ofSeconds(30)).ifPresent(granted::add);
          }
        }));
      }
      for (Future<?> thread : running) {
        thread.get(30, TimeUnit.SECONDS);
      }
    } finally {
      threads.shutdownNow();
    }

    assertThat(granted).hasSize(5);
    assertThat(held()).isEqualTo(5);
    granted.forEach(lease -> lease.release().toCompletableFuture().join());
    assertThat(held()).isZero();
  }

  @Test
  void releaseIsIdempotent() {
    RedisStores node = node();
    PermitLease first = take(node, limiter, 2, Duration.ofSeconds(30)).orElseThrow();
    PermitLease second = take(node, limiter, 2, Duration.ofSeconds(30)).orElseThrow();

    first.release().toCompletableFuture().join();
    first.release().toCompletableFuture().join();

    assertThat(held()).isEqualTo(1);
    assertThat(take(node, limiter, 2, Duration.ofSeconds(30))).isPresent();
    assertThat(take(node, limiter, 2, Duration.ofSeconds(30))).isEmpty();
    second.release().toCompletableFuture().join();
  }

  @Test
  void theLeaseKeyExpiresWithItsLastLease() {
    assertThat(take(node(), limiter, 2, Duration.ofSeconds(10))).isPresent();

    long ttl = Long.parseLong(REDIS.server().command("PTTL", KeyLayout.permits(limiter)));

    assertThat(ttl).isBetween(1L, 10_001L);
  }

  @Test
  void theLeasesOfANodeThatStoppedComeBackAfterTheLeaseTime() {
    // the frozen node's scheduler never runs: it renews nothing, like a crashed or hung node
    VirtualTime frozen = new VirtualTime();
    RedisStores crashed = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()),
        frozen);
    RedisStores survivor = node();
    Duration lease = Duration.ofMillis(400);
    for (int i = 0; i < 3; i++) {
      assertThat(take(crashed, limiter, 3, lease)).isPresent();
    }
    assertThat(take(survivor, limiter, 3, lease)).isEmpty();
    assertThat(frozen.pendingTasks()).isPositive();

    List<PermitLease> regained = new ArrayList<>();
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> {
      take(survivor, limiter, 3, lease).ifPresent(regained::add);
      return regained.size() == 3;
    });
    assertThat(take(survivor, limiter, 3, lease)).isEmpty();
  }

  @Test
  void aPausedNodeThatComesBackWritesItsExpiredLeasesAgainAndNoNewLeaseIsGrantedMeanwhile() {
    // the paused node's scheduler stands still, as a JVM stopped by SIGSTOP or a long GC pause
    VirtualTime paused = new VirtualTime();
    RedisStores sleeper = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()),
        paused);
    RedisStores other = node();
    Duration lease = Duration.ofSeconds(4);
    PermitLease sleeping1 = take(sleeper, limiter, 2, lease).orElseThrow();
    PermitLease sleeping2 = take(sleeper, limiter, 2, lease).orElseThrow();
    List<PermitLease> taken = new ArrayList<>();
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(() -> {
      take(other, limiter, 2, lease).ifPresent(taken::add);
      return taken.size() == 2;
    });

    // it wakes: its first renewal finds both leases gone and writes them again, since their jobs
    // still run; the other node's two run too, so 4 are held for a limit of 2
    paused.advance(lease);
    await().atMost(Duration.ofSeconds(5)).until(() -> held() == 4);
    assertThat(take(other, limiter, 2, lease)).as("over the limit: nothing new").isEmpty();
    taken.get(0).release().toCompletableFuture().join();
    taken.get(1).release().toCompletableFuture().join();
    assertThat(take(other, limiter, 2, lease)).as("at the limit: nothing new").isEmpty();
    sleeping1.release().toCompletableFuture().join();
    assertThat(take(other, limiter, 2, lease)).isPresent();
    sleeping2.release().toCompletableFuture().join();
  }

  @Test
  void theLeasesOfANodeAreRenewedInOneCallWhateverTheirNumber() {
    RedisStores holder = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()),
        Scheduler.system());
    Duration lease = Duration.ofMillis(600);
    for (int i = 0; i < 20; i++) {
      assertThat(take(holder, limiter, 20, lease)).isPresent();
    }
    REDIS.server().command("CONFIG", "RESETSTAT");
    long start = System.nanoTime();

    // a renewal every 200 ms is one ZADD for all 20 leases; one call per lease would make ten in
    // about 100 ms
    await()
        .atMost(Duration.ofSeconds(20))
        .pollInterval(Duration.ofMillis(10))
        .until(() -> zadds() >= 10);
    long millis = (System.nanoTime() - start) / 1_000_000;
    assertThat(millis).isGreaterThanOrEqualTo(1_600);
    assertThat(held()).isEqualTo(20);
  }

  private static long zadds() {
    for (String line : REDIS.server().command("INFO", "commandstats").split("\\R")) {
      if (line.startsWith("cmdstat_zadd:calls=")) {
        return Long.parseLong(line.substring("cmdstat_zadd:calls=".length(), line.indexOf(',')));
      }
    }
    return 0;
  }

  @Test
  void aHeldLeaseIsRenewedPastItsLeaseTime() {
    RedisStores holder = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()),
        Scheduler.system());
    RedisStores other = node();
    Duration lease = Duration.ofMillis(600);
    PermitLease held = take(holder, limiter, 1, lease).orElseThrow();

    await()
        .during(Duration.ofMillis(1_500))
        .atMost(Duration.ofSeconds(4))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> take(other, limiter, 1, lease).isEmpty());

    held.release().toCompletableFuture().join();
    assertThat(take(other, limiter, 1, lease)).isPresent();
  }

  @Test
  void whileRedisIsDownTheLocalPolicyGrantsThisNodesShareOfPermits() {
    RedisStores node =
        nodes.open(REDIS.server().uri(), Duration.ofMillis(50), 3, FailurePolicy.LOCAL);
    REDIS.server().kill();
    try {
      List<PermitLease> local = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        take(node, limiter, 9, Duration.ofSeconds(5)).ifPresent(local::add);
      }

      assertThat(local).as("9 permits / 3 nodes").hasSize(3);
      local.get(0).release().toCompletableFuture().join();
      local.get(0).release().toCompletableFuture().join();
      assertThat(take(node, limiter, 9, Duration.ofSeconds(5))).isPresent();
      assertThat(take(node, limiter, 9, Duration.ofSeconds(5))).isEmpty();
    } finally {
      REDIS.server().restart();
    }
  }

  @Test
  void jobsRunningUnderRedisLeasesCountAgainstTheLocalShare() {
    RedisStores node =
        nodes.open(REDIS.server().uri(), Duration.ofMillis(50), 2, FailurePolicy.LOCAL);
    PermitLease running = take(node, limiter, 2, Duration.ofSeconds(30)).orElseThrow();
    REDIS.server().kill();
    try {
      assertThat(take(node, limiter, 2, Duration.ofSeconds(30)))
          .as("the share (1 of 2) is taken by the job already running")
          .isEmpty();

      running.release().toCompletableFuture().join();
      assertThat(take(node, limiter, 2, Duration.ofSeconds(30))).isPresent();
    } finally {
      REDIS.server().restart();
    }
  }

  @Test
  void aPermitGrantedWhileRedisWasDownIsWrittenToRedisWhenItAnswersAgain() {
    RedisStores node =
        nodes.open(REDIS.server().uri(), Duration.ofMillis(200), 3, FailurePolicy.LOCAL);
    REDIS.server().kill();
    PermitLease local;
    try {
      local = take(node, limiter, 9, Duration.ofSeconds(30)).orElseThrow(); // the local share
    } finally {
      REDIS.server().restart();
    }

    // the limiter's poll asks for the count: that call writes the running job's lease to Redis
    await()
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> node.permits().held(limiter).toCompletableFuture().join() == 1);
    assertThat(held()).isEqualTo(1);

    local.release().toCompletableFuture().join();
    assertThat(held()).isZero();
  }
}
