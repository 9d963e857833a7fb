package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Redis Cluster of three masters and three replicas loses a master (killed, or frozen by
 * SIGSTOP); its replica is promoted. The node must decide every slot in Redis again within a few
 * seconds of the promotion, without a failed decision.
 */
@Tag("integration")
class ClusterFailoverTest {

  @TempDir
  Path dir;

  private final List<RedisServer> servers = new ArrayList<>();

  @AfterEach
  void stop() {
    servers.forEach(RedisServer::resume);
    servers.forEach(RedisServer::close);
  }

  @Test
  void aKilledMastersSlotsAreDecidedOnItsPromotedReplica() throws Exception {
    failover("kill", RedisServer::kill);
  }

  @Test
  void aFrozenMastersSlotsAreDecidedOnItsPromotedReplica() throws Exception {
    failover("SIGSTOP", RedisServer::pause);
  }

  private void failover(String name, Consumer<RedisServer> fail) throws Exception {
    List<String> create = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
    for (int i = 0; i < 6; i++) {
      RedisServer server = RedisServer.startClusterNode(dir, i, Duration.ofSeconds(1));
      servers.add(server);
      create.add("127.0.0.1:" + server.port());
    }
    create.addAll(List.of("--cluster-replicas", "1", "--cluster-yes"));
    Process creating = new ProcessBuilder(create)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .start();
    assertThat(creating.waitFor(30, TimeUnit.SECONDS))
        .as("redis-cli --cluster create")
        .isTrue();
    assertThat(creating.exitValue()).isZero();
    await("the cluster is ok with three replicas")
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(() -> servers.stream()
                .allMatch(s -> s.command("CLUSTER", "INFO").contains("cluster_state:ok"))
            // a replica that never synced may not be promoted
            && servers.stream()
                    .filter(s -> s.command("ROLE").startsWith("slave")
                        && s.command("ROLE").contains("connected"))
                    .count()
                == 3);

    try (Nodes nodes = new Nodes()) {
      RedisStores node = nodes.open(
          URI.create("redis://127.0.0.1:" + servers.get(0).port() + "?cluster=true"),
          Duration.ofMillis(100),
          2,
          FailurePolicy.LOCAL);
      await("up").atMost(Duration.ofSeconds(10)).until(() -> allInRedis(node));
      RedisServer victim = servers.stream()
          .skip(1)
          .filter(s -> s.command("ROLE").startsWith("master"))
          .findFirst()
          .orElseThrow();
      List<RedisServer> replicas =
          servers.stream().filter(s -> s.command("ROLE").startsWith("slave")).toList();

      fail.accept(victim);
      long failed = System.nanoTime();
      await("a replica is promoted")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> {
            allInRedis(node); // the node keeps deciding all along
            return replicas.stream().anyMatch(r -> r.command("ROLE").startsWith("master"));
          });
      long promoted = System.nanoTime();
      await("every slot decided in Redis again")
          .atMost(Duration.ofSeconds(5))
          .pollInterval(Duration.ofMillis(20))
          .until(() -> allInRedis(node));
      long back = System.nanoTime();

      System.out.printf(
          "cluster failover by %s: promoted %d ms after the failure, every slot "
              + "decided in Redis %d ms after the promotion%n",
          name, (promoted - failed) / 1_000_000, (back - promoted) / 1_000_000);
    }
  }

  /**
   * Decides 24 fresh keys (spread over every master's slots); whether all were decided in Redis.
   * Any exception or hang fails the test.
   */
  private static boolean allInRedis(RedisStores node) {
    long before = node.degradedDecisions();
    for (int i = 0; i < 24; i++) {
      Nodes.decide(
          node,
          new RateRequest(
              "probe",
              UUID.randomUUID().toString(),
              Algorithm.TOKEN_BUCKET,
              RateLimit.of(10, Duration.ofHours(1)),
              1),
          Duration.ofSeconds(3));
    }
    return node.degradedDecisions() == before && node.state() == RedisState.UP;
  }
}
