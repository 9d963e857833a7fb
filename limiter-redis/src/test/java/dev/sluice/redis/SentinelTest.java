package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore;
import dev.sluice.store.RateRequest;
import dev.sluice.testing.FaultProxy;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code redis-sentinel://} URIs: the master is found through a real sentinel, and found again
 * after the sentinel promotes a replica.
 */
@Tag("integration")
class SentinelTest {

  @TempDir
  Path dir;

  /**
   * A sentinel on a free port watching {@code master} (quorum 1, the master counts as down after
   * 1 s without an answer). {@code redis-sentinel} when it is on PATH (CI installs it), else
   * {@code redis-server --sentinel}, the same program.
   */
  private Process sentinel(int port, RedisServer master) throws IOException {
    Path conf = dir.resolve("sentinel-" + port + ".conf");
    Files.writeString(
        conf,
        String.join(
            "\n",
            "port " + port,
            "bind 127.0.0.1",
            "sentinel monitor sluice 127.0.0.1 " + master.port() + " 1",
            "sentinel down-after-milliseconds sluice 1000",
            "sentinel failover-timeout sluice 5000",
            ""));
    List<String> command = onPath("redis-sentinel")
        ? List.of("redis-sentinel", conf.toString())
        : List.of("redis-server", conf.toString(), "--sentinel");
    Process process = new ProcessBuilder(command)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    RedisServer.reapWhenThisJvmDies(process);
    await("the sentinel answers")
        .atMost(Duration.ofSeconds(10))
        .ignoreExceptions()
        .until(() -> "PONG".equals(RedisServer.command(port, "PING")));
    return process;
  }

  private static boolean onPath(String binary) {
    String path = System.getenv().getOrDefault("PATH", "");
    for (String folder : path.split(java.io.File.pathSeparator)) {
      if (Files.isExecutable(Path.of(folder, binary))) {
        return true;
      }
    }
    return false;
  }

  /** The master's port as the sentinel names it. */
  private static int masterPort(int sentinel) {
    String[] address = RedisServer.command(
            sentinel, "SENTINEL", "get-master-addr-by-name", "sluice")
        .split("\n");
    return Integer.parseInt(address[1]);
  }

  private static PermitStore.PermitLease take(RedisStores node, String limiter) {
    return node.permits()
        .tryAcquire(limiter, 2, Duration.ofSeconds(30))
        .toCompletableFuture()
        .join()
        .orElseThrow();
  }

  /** Decides a fresh key on {@code node}; whether the decision was made in {@code replica}. */
  private static boolean decidedOnReplica(RedisStores node, RedisServer replica) {
    RateRequest probe = new RateRequest(
        "probe-" + UUID.randomUUID(),
        "p",
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(20, Duration.ofHours(1)),
        1);
    Nodes.decide(node, probe, Duration.ofSeconds(3));
    try {
      return "1"
          .equals(replica.command(
              "EXISTS", KeyLayout.rate(probe.ruleId(), probe.key(), probe.algorithm())));
    } catch (IllegalStateException e) {
      return false; // the sentinel closed this reading connection while reconfiguring the replica
    }
  }

  @Test
  void aKilledMasterIsLeftForThePromotedReplica() throws Exception {
    failover("kill", RedisServer::kill);
  }

  @Test
  void aFrozenMasterIsLeftForThePromotedReplica() throws Exception {
    failover("SIGSTOP", RedisServer::pause);
  }

  /**
   * Two nodes share a limit of 20 an hour (local share 10); one uses 10 through the master. Then
   * the master fails as {@code how} says and the sentinel promotes the replica. Both nodes must be
   * back on Redis (the replica) within 5 s of the promotion, no decision may fail, and together
   * they admit at most one local share beyond the limit. Two jobs that held the only two leases
   * end during the failover: their leases are freed within 2 s of the nodes being back.
   */
  // both nodes must decide on every poll, so no short circuit
  @SuppressWarnings("ShortCircuitBoolean")
  private void failover(String name, java.util.function.Consumer<RedisServer> fail)
      throws Exception {
    RedisServer.requireBinary();
    // the full sync goes over the socket, and any file lands in the test's folder
    try (RedisServer master = RedisServer.start(
            "--dir",
            dir.toString(),
            "--repl-diskless-sync",
            "yes",
            "--repl-diskless-sync-delay",
            "0");
        RedisServer replica = RedisServer.start(
            "--dir",
            dir.toString(),
            "--repl-diskless-load",
            "on-empty-db",
            "--replicaof",
            "127.0.0.1",
            Integer.toString(master.port()))) {
      await("the replica is in sync")
          .atMost(Duration.ofSeconds(10))
          .until(() -> master.command("INFO", "replication").contains("state=online"));
      int port = RedisServer.freePort();
      Process sentinel = sentinel(port, master);
      try (Nodes nodes = new Nodes()) {
        await("the sentinel knows the replica")
            .atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> RedisServer.command(port, "SENTINEL", "replicas", "sluice")
                .contains(Integer.toString(replica.port())));
        URI uri = URI.create("redis-sentinel://127.0.0.1:" + port + "#sluice");
        RedisStores a = nodes.open(uri, Duration.ofMillis(50), 2, FailurePolicy.LOCAL);
        RedisStores b = nodes.open(uri, Duration.ofMillis(50), 2, FailurePolicy.LOCAL);
        RateRequest request = new RateRequest(
            "failover-" + UUID.randomUUID(),
            "all",
            Algorithm.TOKEN_BUCKET,
            RateLimit.of(20, Duration.ofHours(1)),
            1);
        long admitted = Nodes.hammer(List.of(a), 1, request, 10, Duration.ofSeconds(2));
        assertThat(admitted).isEqualTo(10);
        String limiter = "failover-" + UUID.randomUUID();
        List<PermitStore.PermitLease> jobs = List.of(take(a, limiter), take(a, limiter));
        // the replica has the 10 and both leases before the master fails
        master.command("WAIT", "1", "2000");

        fail.accept(master);
        for (PermitStore.PermitLease job : jobs) {
          job.release(); // both jobs end while the master is gone
        }
        long failed = System.nanoTime();
        // both nodes keep deciding all along: every decision answers, none fails
        await("the sentinel promotes the replica")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> {
              decidedOnReplica(a, replica);
              decidedOnReplica(b, replica);
              return masterPort(port) == replica.port();
            });
        long promoted = System.nanoTime();
        await("both nodes decide on the new master")
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> decidedOnReplica(a, replica) & decidedOnReplica(b, replica));
        long back = System.nanoTime();
        await("the leases of the jobs that ended are freed")
            .atMost(Duration.ofSeconds(2))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> "0".equals(replica.command("ZCARD", KeyLayout.permits(limiter))));
        long freed = System.nanoTime();
        admitted += Nodes.hammer(List.of(a, b), 2, request, 60, Duration.ofSeconds(2));

        System.out.printf(
            "sentinel failover by %s: promoted %d ms after the failure, both nodes "
                + "on the new master %d ms after the promotion, leases released meanwhile freed %d ms "
                + "after that; %d admitted of a limit of 20 (share 10)%n",
            name,
            (promoted - failed) / 1_000_000,
            (back - promoted) / 1_000_000,
            (freed - back) / 1_000_000,
            admitted);
        assertThat(admitted).isLessThanOrEqualTo(20 + 10);
        assertThat(replica.command(
                "EXISTS", KeyLayout.rate(request.ruleId(), request.key(), request.algorithm())))
            .isEqualTo("1");
      } finally {
        sentinel.destroyForcibly();
        master.resume();
      }
    }
  }

  /**
   * Asynchronous replication: the replica misses the last 8 admissions (its link to the master
   * runs through a proxy that holds them back), the master dies before they get through, and the
   * sentinel promotes the replica. The epoch replicated long before, so it cannot tell; the node
   * finds the promotion in {@code INFO replication} before it decides on the new master again, and
   * charges what the replica lacks: nothing is admitted beyond the limit.
   */
  @Test
  // the link is closed early on purpose: the last writes never reach the replica
  @SuppressWarnings("try")
  void aPromotedReplicaThatMissedTheLastWritesIsChargedThem() throws Exception {
    RedisServer.requireBinary();
    // a frozen replica (SIGSTOP) would not do: the kernel still takes the stream into its socket
    try (RedisServer master = RedisServer.start(
            "--dir",
            dir.toString(),
            "--repl-diskless-sync",
            "yes",
            "--repl-diskless-sync-delay",
            "0");
        FaultProxy link = new FaultProxy(master.port());
        RedisServer replica = RedisServer.start(
            "--dir",
            dir.toString(),
            "--repl-diskless-load",
            "on-empty-db",
            "--replicaof",
            "127.0.0.1",
            Integer.toString(link.uri().getPort()))) {
      await("the replica is in sync")
          .atMost(Duration.ofSeconds(10))
          .until(() -> master.command("INFO", "replication").contains("state=online"));
      int port = RedisServer.freePort();
      Process sentinel = sentinel(port, master);
      try (Nodes nodes = new Nodes()) {
        await("the sentinel knows the replica")
            .atMost(Duration.ofSeconds(15))
            .pollInterval(Duration.ofMillis(100))
            .until(() -> RedisServer.command(port, "SENTINEL", "replicas", "sluice")
                .contains(Integer.toString(replica.port())));
        URI uri = URI.create("redis-sentinel://127.0.0.1:" + port + "#sluice");
        RedisStores node = nodes.open(uri, Duration.ofMillis(50), 2, FailurePolicy.LOCAL);
        RateRequest request = new RateRequest(
            "lost-" + UUID.randomUUID(),
            "all",
            Algorithm.TOKEN_BUCKET,
            RateLimit.of(20, Duration.ofHours(1)),
            1);
        long admitted = Nodes.hammer(List.of(node), 1, request, 12, Duration.ofSeconds(2));
        master.command("WAIT", "1", "2000"); // the replica has these 12

        link.blackhole();
        admitted += Nodes.hammer(List.of(node), 1, request, 8, Duration.ofSeconds(2));
        assertThat(admitted).as("the limit used up on the master").isEqualTo(20);
        master.kill();
        link.close(); // the last 8 never reach the replica

        await("the sentinel promotes the replica")
            .atMost(Duration.ofSeconds(30))
            .pollInterval(Duration.ofMillis(50))
            .until(() -> {
              decidedOnReplica(node, replica);
              return masterPort(port) == replica.port();
            });
        await("the node decides on the new master")
            .atMost(Duration.ofSeconds(5))
            .pollInterval(Duration.ofMillis(20))
            .until(() -> decidedOnReplica(node, replica));
        long after = Nodes.hammer(List.of(node), 1, request, 30, Duration.ofSeconds(2));

        System.out.printf(
            "a promoted replica that missed 8 admissions: %d admitted after the "
                + "failover (limit 20, share 10)%n",
            after);
        assertThat(after).as("the 8 the replica missed are charged again").isZero();
      } finally {
        sentinel.destroyForcibly();
      }
    }
  }

  @Test
  void aSentinelUriReachesTheMasterItNames() throws IOException {
    try (RedisServer master = RedisServer.start()) {
      int port = RedisServer.freePort();
      Path conf = dir.resolve("sentinel.conf");
      Files.writeString(
          conf,
          String.join(
              "\n",
              "port " + port,
              "bind 127.0.0.1",
              "sentinel monitor sluice 127.0.0.1 " + master.port() + " 1",
              ""));
      Process sentinel = new ProcessBuilder("redis-server", conf.toString(), "--sentinel")
          .redirectErrorStream(true)
          .redirectOutput(ProcessBuilder.Redirect.DISCARD)
          .start();
      RedisServer.reapWhenThisJvmDies(sentinel);
      try (Nodes nodes = new Nodes()) {
        URI uri = URI.create("redis-sentinel://127.0.0.1:" + port + "#sluice");
        assertThat(new RedisStoreProvider().supports(uri)).isTrue();
        RateRequest request = new RateRequest(
            "sentinel-" + UUID.randomUUID(),
            "a",
            Algorithm.TOKEN_BUCKET,
            RateLimit.of(3, Duration.ofHours(1)),
            1);
        // the sentinel takes a moment to start listening
        RedisStores node = await()
            .atMost(Duration.ofSeconds(10))
            .until(
                () -> nodes.open(uri, Duration.ofSeconds(1), 1, FailurePolicy.DENY),
                n -> n.state() == RedisState.UP);

        long admitted = 0;
        for (int i = 0; i < 5; i++) {
          admitted += Nodes.decide(node, request, Duration.ofSeconds(2)).allowed() ? 1 : 0;
        }
        assertThat(admitted).isEqualTo(3);
        assertThat(node.degradedDecisions()).isZero();
        assertThat(node.describe()).startsWith("redis-sentinel://127.0.0.1:" + port + "#sluice");
      } finally {
        sentinel.destroyForcibly();
      }
    }
  }
}
