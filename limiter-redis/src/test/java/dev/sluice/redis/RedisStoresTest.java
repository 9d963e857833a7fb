package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.testing.FaultProxy;
import dev.sluice.time.VirtualTime;
import io.lettuce.core.RedisCommandTimeoutException;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What a node does by itself, against a real Redis: the probes that find Redis back, the reconnects
 * of a node that started without it, the replication poll. The scheduler and the breaker run on one
 * virtual time, so an outage lasts exactly as long as the test says and nothing waits for the
 * breaker's {@link Guard#OPEN_FOR}.
 */
@Tag("integration")
class RedisStoresTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  /**
   * The wait for what a node does by itself (a round trip, a probe, a reconnect): longer than one
   * call's {@link #TIMEOUT}, and short enough that a mutant that keeps it from happening fails the
   * test here, within PIT's timeout allowance for a test (4 s and more).
   */
  private static final Duration WAIT = Duration.ofSeconds(3);

  private final VirtualTime time = new VirtualTime();
  private final Nodes nodes = new Nodes();

  @AfterEach
  void close() {
    nodes.close();
  }

  private RedisStores node(URI uri) {
    return nodes.openOn(
        new StoreSettings(uri, TIMEOUT, 2, FailurePolicy.LOCAL, time, TIMEOUT), time);
  }

  private static URI nowhere() {
    return URI.create("redis://127.0.0.1:" + RedisServer.freePort());
  }

  private static RateRequest fresh() {
    return new RateRequest(
        "rule-" + UUID.randomUUID(),
        "actor",
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(10, Duration.ofHours(1)),
        1);
  }

  /** The INFO commands this test sent to count commands. */
  private long ownInfos;

  /** How many {@code command}s (lower case) the server ran, less this test's own counting. */
  private long calls(RedisServer server, String command) {
    // INFO commandstats counts the commands that ended before it: the earlier counts, not itself
    long calls = server.calls(command);
    long own = ownInfos++;
    return command.equals("info") ? calls - own : calls;
  }

  @Test
  void anIdleNodeFindsRedisBackByItsProbes() {
    RedisStores node = node(REDIS.server().uri());
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(node.state()).isEqualTo(RedisState.DOWN);

    time.advance(Guard.OPEN_FOR.multipliedBy(2));

    // three answered probes in a row close the breaker, without a single request
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> node.state() == RedisState.UP);
    assertThat(node.degradedDecisions()).isZero();
    assertThat(node.health().state()).isEqualTo("up");
  }

  @Test
  void aProbeWithoutAConnectionCountsAsAFailedCall() {
    RedisStores node = node(nowhere());
    assertThat(node.state()).isEqualTo(RedisState.DOWN);
    // the reason Lettuce wraps deep down, not the wrapper
    assertThat(node.describe())
        .contains("last error IllegalStateException: cannot connect at start-up: ")
        .contains("Connection refused")
        .doesNotContain("RedisConnectionException");

    time.advance(Guard.OPEN_FOR.multipliedBy(2));

    assertThat(node.state()).isEqualTo(RedisState.PROBING);
    assertThat(node.health().state()).isEqualTo("probing");
    assertThat(node.describe()).endsWith("last error IllegalStateException: not connected)");
    // three probes failed: down again
    time.advance(Guard.OPEN_FOR.multipliedBy(2));
    assertThat(node.state()).isEqualTo(RedisState.DOWN);
  }

  @Test
  void aNodeThatStartedWithoutRedisUsesItOnceItAnswers() {
    int port = RedisServer.freePort();
    RedisStores node = node(URI.create("redis://127.0.0.1:" + port));
    assertThat(node.state()).isEqualTo(RedisState.DOWN);

    try (RedisServer late = RedisServer.onPort(port)) {
      time.advance(RedisStores.RECONNECT_EVERY);
      RedisPermitStore permits = (RedisPermitStore) node.permits();
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> permits.link().isConnected());
      time.advance(Guard.OPEN_FOR.multipliedBy(2));

      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> node.state() == RedisState.UP);
      assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();
      assertThat(node.degradedDecisions()).isZero();
      assertThat(node.describe()).isEqualTo("redis://127.0.0.1:" + late.port() + " (up)");
    }
  }

  @Test
  void aClosedNodeSchedulesNothingMore() {
    // down: its probes, polls and reconnects are all scheduled
    RedisStores node = node(nowhere());
    assertThat(time.pendingTasks()).isPositive();

    node.close();
    time.advance(Guard.OPEN_FOR.multipliedBy(2));

    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void whileUpTheMasterIsAskedForItsReplicationEveryPoll() {
    RedisServer server = REDIS.server();
    RedisStores node = node(server.uri());
    long before = calls(server, "info");
    long gets = calls(server, "get");

    time.advance(LossWatch.POLL);

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> calls(server, "info") - before == 1);
    // beside it the epoch poll's GET, and no probe: Redis is up
    assertThat(calls(server, "get") - gets).isEqualTo(1);
    node.guard().markDown(new IllegalStateException("test"));
    time.advance(LossWatch.POLL);
    assertThat(calls(server, "info") - before).as("none while down").isEqualTo(1);
  }

  @Test
  void theReplicationIsCheckedBeforeTheFirstDecisionAndAgainAfterAnOutage() {
    RedisServer server = REDIS.server();
    RedisStores node = node(server.uri());
    long before = calls(server, "info");

    assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();
    assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();
    long first = calls(server, "info") - before;
    node.guard().markDown(new IllegalStateException("test"));
    node.guard().markUp();
    assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();

    assertThat(first).as("one check for two decisions").isEqualTo(1);
    assertThat(calls(server, "info") - before).as("one more after the outage").isEqualTo(2);
    assertThat(node.degradedDecisions()).isZero();
  }

  @Test
  void aRedisThatRefusesInfoStillDecidesAndIsWarnedAboutOnce() {
    // a managed Redis may rename or forbid INFO
    try (RedisServer managed =
            RedisServer.start("--rename-command", "INFO", "info-" + UUID.randomUUID());
        LoggedWarnings warnings = LoggedWarnings.of(RedisStores.class)) {
      RedisStores node = node(managed.uri());

      assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();
      node.guard().markDown(new IllegalStateException("test"));
      node.guard().markUp();
      assertThat(Nodes.decide(node, fresh(), WAIT).allowed()).isTrue();

      assertThat(node.degradedDecisions()).isZero();
      assertThat(node.state()).isEqualTo(RedisState.UP);
      // once: after the refusal the node no longer asks
      assertThat(warnings.messages())
          .filteredOn(warning -> warning.contains("refuses INFO"))
          .singleElement()
          .asString()
          .startsWith("Redis at " + managed.uri() + " refuses INFO (ERR unknown command")
          .endsWith("writes a promoted replica missed will not be found");
    }
  }

  @Test
  void aSlowRedisIsShownWithTheTimeoutToRaiseUntilACallIsAnsweredInTime() throws Exception {
    try (FaultProxy proxy = new FaultProxy(REDIS.server().port())) {
      RedisStores node = nodes.openOn(
          new StoreSettings(
              proxy.uri(), Duration.ofMillis(100), 2, FailurePolicy.LOCAL, time, TIMEOUT),
          time);
      proxy.delay(Duration.ofMillis(300));

      // a call timed out: a PING tells a slow Redis (answered later) from a dead one
      node.guard().failed(System.nanoTime(), new RedisCommandTimeoutException("late"));

      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> node.describe().contains("[slow"));
      assertThat(node.describe())
          .startsWith(proxy.uri() + " (up) [slow: a PING took ")
          .endsWith("sluice.redis.timeout is 100 ms; raise it above the round trip if Redis is "
              + "this far]");
      node.guard().succeeded(System.nanoTime());
      assertThat(node.describe()).isEqualTo(proxy.uri() + " (up)");
      assertThat(node.replacedConnections()).isZero();
    }
  }

  /** {@code master_repl_offset} in the INFO replication of whatever listens on {@code port}. */
  private static long replicationOffset(int port) {
    for (String line : RedisServer.command(port, "INFO", "replication").split("\\R")) {
      if (line.startsWith("master_repl_offset:")) {
        return Long.parseLong(line.substring("master_repl_offset:".length()).trim());
      }
    }
    throw new AssertionError("no master_repl_offset from port " + port);
  }

  @Test
  void aPromotedReplicaIsChargedWhatWasAdmittedAfterTheLastPollItCopied() {
    // the first sync at once, without writing a file
    try (RedisServer master =
            RedisServer.start("--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0");
        RedisServer replica = RedisServer.start(
            "--repl-diskless-load",
            "on-empty-db",
            "--replicaof",
            "127.0.0.1",
            Integer.toString(master.port()));
        LoggedWarnings warnings = LoggedWarnings.of(RedisRateStore.class)) {
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(10))
          .until(() -> master.command("INFO", "replication").contains("state=online"));
      RedisStores node = node(master.uri());
      RateRequest request = fresh();
      // admitted after the check before the first decision: copied by the poll below
      assertThat(Nodes.decide(node, request, WAIT).allowed()).isTrue();
      long polls = calls(master, "info");
      time.advance(LossWatch.POLL);
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> calls(master, "info") - polls == 1);
      for (int i = 0; i < 3; i++) {
        assertThat(Nodes.decide(node, request, WAIT).allowed()).isTrue();
      }
      await()
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> replicationOffset(replica.port()) == replicationOffset(master.port()));

      // the master dies; its replica is promoted and takes over its address
      int port = master.port();
      master.kill();
      replica.command("REPLICAOF", "NO", "ONE");
      replica.command("CONFIG", "SET", "port", Integer.toString(port));

      // Lettuce reconnects within 1 s (its longest reconnect delay)
      await().atMost(WAIT).pollInterval(Duration.ofMillis(20)).until(() -> {
        time.advance(LossWatch.POLL);
        return !warnings.messages().isEmpty();
      });
      assertThat(warnings.messages())
          .singleElement()
          .asString()
          .contains("since its copy ended (1 rule and actor pair(s))");
      // 4 copied and the 3 admitted after the last copied poll charged again: 3 of 10 left
      int admitted = 0;
      for (int i = 0; i < 5; i++) {
        admitted += Nodes.decide(node, request, WAIT).allowed() ? 1 : 0;
      }
      assertThat(admitted).isEqualTo(3);
    }
  }
}
