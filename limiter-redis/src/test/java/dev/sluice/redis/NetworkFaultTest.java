package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore.PermitLease;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Faults of the network between a node and Redis, played by a {@link FaultProxy}: connections
 * reset, a blackhole, a delay longer than the timeout. Each test prints what the fault cost.
 */
@Tag("integration")
class NetworkFaultTest {

  private static final Duration TIMEOUT = Duration.ofMillis(50);
  private static final Duration LEASE = Duration.ofSeconds(30);
  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();
  private Nodes nodes;
  private FaultProxy proxy;
  private String limiter;

  @BeforeEach
  void open() throws Exception {
    nodes = new Nodes();
    proxy = new FaultProxy(REDIS.server().port());
    limiter = "transcode-" + UUID.randomUUID();
  }

  @AfterEach
  void close() throws Exception {
    nodes.close();
    proxy.close();
  }

  private static Optional<PermitLease> take(RedisStores node, String limiter, int max) {
    return node.permits().tryAcquire(limiter, max, LEASE).toCompletableFuture().join();
  }

  /** The leases Redis holds for the limiter, read beside the proxy. */
  private long leasesInRedis() {
    return Long.parseLong(REDIS.server().command("ZCARD", KeyLayout.permits(limiter)));
  }

  @Test
  void leasesReleasedWhileTheConnectionWasCutAreFreedSoonAfterRedisAnswers() {
    RedisStores node = nodes.open(proxy.uri(), TIMEOUT, 1, FailurePolicy.LOCAL);
    PermitLease first = take(node, limiter, 2).orElseThrow();
    PermitLease second = take(node, limiter, 2).orElseThrow();
    assertThat(leasesInRedis()).isEqualTo(2);

    proxy.cut();
    first.release().toCompletableFuture().join(); // both jobs end while Redis is unreachable
    second.release().toCompletableFuture().join();
    proxy.heal();
    long healed = System.nanoTime();

    await("both leases freed in Redis").atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(20)).until(() -> leasesInRedis() == 0);
    System.out.printf("released during a cut: freed in Redis %d ms after the cut healed%n",
        (System.nanoTime() - healed) / 1_000_000);
    await("a new job gets a lease in Redis").atMost(Duration.ofSeconds(2))
        .pollInterval(Duration.ofMillis(20)).until(() -> {
          take(node, limiter, 2);
          return leasesInRedis() == 1;
        });
  }
}
