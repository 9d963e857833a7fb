package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore.PermitLease;
import dev.sluice.store.RateRequest;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** A real three-master Redis Cluster: every script touches one slot, actors spread over masters. */
@Tag("integration")
class RedisClusterTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final List<RedisServer> MASTERS = new ArrayList<>();
  private static Nodes nodes;
  private static RedisStores node;

  @BeforeAll
  static void startCluster() throws Exception {
    Path dir = Files.createTempDirectory("sluice-cluster");
    RedisServer.startCluster(dir, MASTERS);

    nodes = new Nodes();
    node = nodes.open(
        URI.create("redis://127.0.0.1:" + MASTERS.get(0).port() + "?cluster=true"),
        TIMEOUT,
        1,
        FailurePolicy.DENY);
  }

  @AfterAll
  static void stopCluster() throws IOException {
    if (nodes != null) {
      nodes.close();
    }
    MASTERS.forEach(RedisServer::close);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void everyActorGetsExactlyItsLimitWhereverItsSlotLives(Algorithm algorithm) {
    RateLimit limit = RateLimit.of(3, Duration.ofHours(1));
    for (int actor = 0; actor < 12; actor++) {
      RateRequest request =
          new RateRequest("cluster-" + algorithm.id(), "actor-" + actor, algorithm, limit, 1);
      long admitted = 0;
      for (int i = 0; i < 5; i++) {
        admitted += decide(node, request, TIMEOUT).allowed() ? 1 : 0;
      }
      assertThat(admitted).as("actor %d", actor).isEqualTo(3);
    }

    assertThat(node.degradedDecisions())
        .as("no CROSSSLOT, no MOVED left unanswered")
        .isZero();
    assertThat(MASTERS)
        .allSatisfy(master -> assertThat(Long.parseLong(master.command("DBSIZE")))
            .as("keys on every master")
            .isPositive());
  }

  @Test
  void leasesWorkOnTheCluster() {
    List<PermitLease> held = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Optional<PermitLease> lease = node.permits()
          .tryAcquire("cluster-transcode", 3, Duration.ofSeconds(10))
          .toCompletableFuture()
          .join();
      lease.ifPresent(held::add);
    }

    assertThat(held).hasSize(3);
    held.forEach(lease -> lease.release().toCompletableFuture().join());
    assertThat(node.permits()
            .tryAcquire("cluster-transcode", 3, Duration.ofSeconds(10))
            .toCompletableFuture()
            .join())
        .isPresent();
  }
}
