package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.testing.FaultProxy;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Connecting is not a failure: a slow first connect neither degrades a node nor over-admits. */
@Tag("integration")
class StartUpTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final RateLimit TEN_AN_HOUR = RateLimit.of(10, Duration.ofHours(1));
  private Nodes nodes;

  @BeforeEach
  void open() {
    nodes = new Nodes();
  }

  @AfterEach
  void close() {
    nodes.close();
  }

  private static RateRequest fresh() {
    return new RateRequest(
        "start-" + UUID.randomUUID(), "all", Algorithm.TOKEN_BUCKET, TEN_AN_HOUR, 1);
  }

  @Test
  void aHandshakeSlowerThanTheCommandTimeoutIsNotAnOutage() throws Exception {
    try (SlowProxy slow = new SlowProxy(REDIS.server().port(), Duration.ofMillis(600))) {
      // decisions are bounded by 200 ms; the connect by its own 2 s
      StoreSettings settings = new StoreSettings(
          slow.uri(),
          Duration.ofMillis(200),
          2,
          FailurePolicy.LOCAL,
          NanoClock.system(),
          Duration.ofSeconds(2));

      RedisStores node = nodes.openStarting(settings, Scheduler.system());

      assertThat(node.state()).isEqualTo(RedisState.UP);
      RateRequest request = fresh();
      long admitted = 0;
      for (int i = 0; i < 20; i++) {
        admitted += Nodes.decide(node, request, Duration.ofSeconds(2)).allowed() ? 1 : 0;
      }
      assertThat(admitted).isEqualTo(10);
      assertThat(node.degradedDecisions()).isZero();
    }
  }

  @Test
  void slowFirstCallsOfANodeThatStartsAreDecidedInRedisNotLocally() throws Exception {
    // a cold start: this JVM compiles its request path while requests arrive, and its first calls
    // take longer than the 50 ms timeout although Redis answers at once (here: 200 ms round trips)
    try (FaultProxy cold = new FaultProxy(REDIS.server().port())) {
      cold.delay(Duration.ofMillis(200));
      RedisStores node = nodes.openStarting(
          new StoreSettings(
              cold.uri(),
              Duration.ofMillis(50),
              2,
              FailurePolicy.LOCAL,
              NanoClock.system(),
              Duration.ofSeconds(1)),
          Scheduler.system());

      RateRequest request = fresh();
      long admitted = 0;
      for (int i = 0; i < 15; i++) {
        admitted += Nodes.decide(node, request, Duration.ofSeconds(5)).allowed() ? 1 : 0;
      }

      assertThat(node.degradedDecisions()).isZero();
      assertThat(node.state()).isEqualTo(RedisState.UP);
      assertThat(admitted).isEqualTo(10);
      assertThat(node.describe()).doesNotContain("slow");
    }
  }

  @Test
  void theStartUpAllowanceEndsOnceCallsAreAnsweredInTime() throws Exception {
    try (FaultProxy proxy = new FaultProxy(REDIS.server().port())) {
      RedisStores node = nodes.openStarting(
          new StoreSettings(
              proxy.uri(),
              Duration.ofMillis(50),
              2,
              FailurePolicy.LOCAL,
              NanoClock.system(),
              Duration.ofSeconds(1)),
          Scheduler.system());
      // warm: answered in time, the node counts as started (on a machine so busy that many miss
      // the timeout, the allowance ends by its time bound instead)
      await()
          .atMost(CallBound.START_ALLOWANCE.plusSeconds(10))
          .pollInterval(Duration.ofMillis(1))
          .until(() -> {
            Nodes.decide(node, fresh(), Duration.ofSeconds(5));
            return node.describe().contains("(up)") && startedBound(node);
          });

      // now a Redis farther than the timeout is found as such: decisions go local
      proxy.delay(Duration.ofMillis(200));
      await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
        Nodes.decide(node, fresh(), Duration.ofSeconds(5));
        return node.degradedDecisions() > 0;
      });
    }
  }

  /** Whether a call sent now is bounded by the decision timeout (the allowance is over). */
  private static boolean startedBound(RedisStores node) {
    return node.callBound().nanos() == node.callBound().decisionNanos();
  }

  @Test
  @SuppressWarnings("try") // the server only has to run during the block
  void aFirstConnectThatFailsCountsAsDownAndTheNodeReconnectsInTheBackground() throws Exception {
    int port = RedisServer.freePort();
    StoreSettings settings = new StoreSettings(
        uriOf(port),
        Duration.ofMillis(50),
        2,
        FailurePolicy.LOCAL,
        NanoClock.system(),
        Duration.ofSeconds(1));
    RedisStores node = nodes.openStarting(settings, Scheduler.system());
    assertThat(node.state()).isEqualTo(RedisState.DOWN);

    try (RedisServer late = RedisServer.onPort(port)) {
      RateRequest request = fresh();
      org.awaitility.Awaitility.await()
          .atMost(Duration.ofSeconds(10))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> {
            Nodes.decide(node, request, Duration.ofSeconds(1));
            return node.state() == RedisState.UP;
          });
    }
  }

  private static java.net.URI uriOf(int port) {
    return java.net.URI.create("redis://127.0.0.1:" + port);
  }

  @ParameterizedTest(name = "{0} nodes")
  @ValueSource(ints = {2, 3})
  void nodesStartedWhileTheMachineIsBusyEnforceTheExactGlobalLimit(int count) throws Exception {
    AtomicBoolean busy = new AtomicBoolean(true);
    List<Thread> burners = new ArrayList<>();
    for (int i = 0; i < Runtime.getRuntime().availableProcessors(); i++) {
      Thread burner = new Thread(
          () -> {
            long x = 0;
            while (busy.get()) {
              x += System.nanoTime() % 7; // keep a core busy
            }
            if (x == 42) {
              System.out.print("");
            }
          },
          "burner-" + i);
      burner.setDaemon(true);
      burner.start();
      burners.add(burner);
    }
    List<RedisStores> started;
    try {
      // every node opens at once while every core is busy, as on the loaded machine of the report
      List<CompletableFuture<RedisStores>> opening = new ArrayList<>();
      for (int n = 0; n < count; n++) {
        opening.add(CompletableFuture.supplyAsync(() -> nodes.openStarting(
            new StoreSettings(
                REDIS.server().uri(),
                Duration.ofMillis(500),
                count,
                FailurePolicy.LOCAL,
                NanoClock.system(),
                Duration.ofSeconds(2)),
            Scheduler.system())));
      }
      started = opening.stream().map(CompletableFuture::join).toList();
      for (RedisStores node : started) {
        assertThat(node.state()).isEqualTo(RedisState.UP);
      }
      long admitted = Nodes.hammer(started, 2, fresh(), 40, Duration.ofSeconds(5));

      // exactly the limit (not 15 under 10), and none decided locally: the first calls of a
      // starting node, slow because every core is busy, get the start-up allowance instead of
      // counting Redis as down
      long degraded = started.stream().mapToLong(RedisStores::degradedDecisions).sum();
      assertThat(degraded).isZero();
      assertThat(admitted).isEqualTo(10);
    } finally {
      busy.set(false);
      for (Thread burner : burners) {
        burner.join();
      }
    }
  }
}
