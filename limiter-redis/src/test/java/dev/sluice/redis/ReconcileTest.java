package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.PermitStore;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreHealth;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Count locally, sync, compensate: two nodes share a limit of 20 an hour (local share 10) and use
 * it up through Redis; then Redis fails. Whatever happens, the nodes together admit at most one
 * local share beyond the limit: what a node admitted on its own is charged to Redis when Redis
 * answers again, and everything recent is charged again when Redis lost its counts. Each test
 * prints its overshoot.
 */
@Tag("integration")
class ReconcileTest {

  private static final RateLimit TWENTY_AN_HOUR = RateLimit.of(20, Duration.ofHours(1));
  private static final long SHARE = 10;
  private static final Duration TIMEOUT = Duration.ofMillis(500);

  private RedisServer server;
  private Nodes nodes;
  private List<RedisStores> cluster;
  private RateRequest request;

  @BeforeEach
  void start() {
    server = RedisServer.start();
    nodes = new Nodes();
    cluster = List.of(
        nodes.open(server.uri(), TIMEOUT, 2, FailurePolicy.LOCAL),
        nodes.open(server.uri(), TIMEOUT, 2, FailurePolicy.LOCAL));
    request = new RateRequest(
        "reconcile-" + UUID.randomUUID(), "all", Algorithm.TOKEN_BUCKET, TWENTY_AN_HOUR, 1);
  }

  @AfterEach
  void stop() {
    nodes.close();
    server.close();
  }

  private long hammer(List<RedisStores> on, int attempts) throws Exception {
    return Nodes.hammer(on, 2, request, attempts, Duration.ofSeconds(2));
  }

  private void awaitUp() {
    await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(50)).until(() -> {
      for (RedisStores node : cluster) {
        // a fresh key: probing must not spend the rule under test
        Nodes.decide(
            node,
            new RateRequest(
                "probe-" + UUID.randomUUID(), "p", Algorithm.TOKEN_BUCKET, TWENTY_AN_HOUR, 1),
            Duration.ofSeconds(1));
      }
      return cluster.stream().allMatch(n -> n.state() == RedisState.UP);
    });
  }

  private void awaitDown() {
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> {
      // the breaker opens after 5 calls of which half failed
      List<java.util.concurrent.CompletableFuture<?>> trips = new java.util.ArrayList<>();
      for (RedisStores node : cluster) {
        for (int i = 0; i < 5; i++) {
          trips.add(node.rates()
              .tryAcquire(List.of(new RateRequest(
                  "trip-" + UUID.randomUUID(), "t", Algorithm.TOKEN_BUCKET, TWENTY_AN_HOUR, 1)))
              .toCompletableFuture());
        }
      }
      trips.forEach(java.util.concurrent.CompletableFuture::join);
      return cluster.stream().allMatch(n -> n.state() != RedisState.UP);
    });
  }

  @Test
  void flushallMidRunCostsAtMostOneLocalShare() throws Exception {
    assertThat(hammer(cluster, 60)).isEqualTo(20);
    // both nodes have talked to this Redis (one may have got none of the 60 attempts)
    cluster.forEach(this::probe);

    server.command("FLUSHALL");
    long after = hammer(cluster, 200);

    System.out.println("reconcile FLUSHALL: overshoot " + after + " (limit 20, local share 10)");
    // no decision is made on the emptied state (each script checks the epoch), each node charges
    // what it admitted and decides on its share until the others have charged theirs too
    assertThat(after).isLessThanOrEqualTo(SHARE);
    // a node that got none of the attempts after the flush (the other, deciding locally, is fast)
    // finds the loss by its poll
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> cluster.stream().allMatch(node -> node.health().lostStates() > 0));
    assertThat(cluster)
        .allSatisfy(node -> assertThat(node.health().lostStates()).isEqualTo(1));
  }

  @Test
  void anIdleNodeChargesItsCountsBeforeTheOthersTrustRedisAgain() throws Exception {
    VirtualTime time = new VirtualTime();
    RedisStores idle = openIn(time);
    RedisStores busy = openIn(time);
    // the idle node used the whole limit and fell silent; the busy one has talked to this Redis
    assertThat(hammer(List.of(idle), 60)).isEqualTo(20);
    probe(busy);

    server.command("FLUSHALL");
    long settling = hammer(List.of(busy), 50);
    assertThat(busy.describe()).contains("Redis lost its counts");
    assertThat(busy.health().state()).isEqualTo(StoreHealth.SETTLING);
    assertThat(busy.health().lostStates()).isEqualTo(1);
    assertThat(busy.health().degradedDecisions()).isEqualTo(50);
    // within one poll the idle node finds the loss and charges its 20 again
    time.advance(LossWatch.POLL);
    String state = KeyLayout.rate(request.ruleId(), request.key(), request.algorithm());
    await().atMost(Duration.ofSeconds(5)).until(() -> "1".equals(server.command("EXISTS", state)));
    time.advance(Duration.ofSeconds(5)); // the busy node's settling time is over
    long after = hammer(List.of(busy), 50);

    System.out.println("reconcile FLUSHALL with an idle node: overshoot " + (settling + after)
        + " (" + settling + " while settling, " + after + " after; limit 20, local share 10)");
    assertThat(busy.health().lostStates()).isEqualTo(1);
    assertThat(idle.health().lostStates()).isEqualTo(1);
    assertThat(busy.describe()).doesNotContain("lost its counts");
    assertThat(busy.health().state()).isEqualTo(StoreHealth.UP);
    // without the idle node's poll, the busy node would find the idle node's 20 missing in Redis
    // and admit 10 more once its settling time is over
    assertThat(settling).isEqualTo(SHARE);
    assertThat(after).isZero();
  }

  @ParameterizedTest
  @EnumSource(FailurePolicy.class)
  void whileSettlingANodeDecidesOnItsShareWhateverTheFailurePolicy(FailurePolicy policy)
      throws Exception {
    VirtualTime time = new VirtualTime();
    RedisStores node = nodes.open(Nodes.settings(server.uri(), TIMEOUT, 2, policy, time), time);
    assertThat(hammer(List.of(node), 5)).isEqualTo(5);
    // the node knows which Redis state it decided on (a node that does not cannot tell a loss)
    await().atMost(Duration.ofSeconds(5)).until(() -> rates(node).knowsEpoch());

    server.command("FLUSHALL");
    long settling = hammer(List.of(node), 50);

    // Redis answers: allowing all or denying all for the settling time is not what the failure
    // policy is for; the share (10, of which this node used 5) bounds it
    assertThat(node.health().lostStates()).isEqualTo(1);
    assertThat(settling).isEqualTo(SHARE - 5);
  }

  @Test
  void afterAFlushNoLeaseIsGrantedBeforeTheRunningJobsAreCountedAgain() throws Exception {
    VirtualTime time = new VirtualTime();
    RedisStores running = openIn(time);
    RedisStores asking = openIn(time);
    String limiter = "transcode-" + UUID.randomUUID();
    Duration leaseTime = Duration.ofSeconds(30);
    // the running node holds both permits of a global limit of 2; the asking node has been told so
    assertThat(lease(running, limiter, leaseTime)).isPresent();
    assertThat(lease(running, limiter, leaseTime)).isPresent();
    assertThat(lease(asking, limiter, leaseTime)).isEmpty();
    await()
        .atMost(Duration.ofSeconds(5))
        .until(() -> rates(running).knowsEpoch() && rates(asking).knowsEpoch());

    server.command("FLUSHALL");
    // the set is empty, but the asking node's script finds the epoch gone and takes nothing
    assertThat(lease(asking, limiter, leaseTime)).isEmpty();
    await().atMost(Duration.ofSeconds(5)).until(() -> asking.health().lostStates() == 1);
    // nor while it settles; meanwhile the running node's poll finds the loss and writes its two
    // leases again (their jobs still run)
    assertThat(lease(asking, limiter, leaseTime)).isEmpty();
    time.advance(LossWatch.POLL);
    String leases = KeyLayout.permits(limiter);
    await().atMost(Duration.ofSeconds(5)).until(() -> "2".equals(server.command("ZCARD", leases)));
    time.advance(Duration.ofSeconds(5));

    assertThat(lease(asking, limiter, leaseTime))
        .as("both permits are held again")
        .isEmpty();
    assertThat(running.health().lostStates()).isEqualTo(1);
  }

  private static java.util.Optional<PermitStore.PermitLease> lease(
      RedisStores node, String limiter, Duration leaseTime) {
    return node.permits()
        .tryAcquire(limiter, 2, leaseTime)
        .toCompletableFuture()
        .join();
  }

  /** A node of two whose clock and scheduler (the poll, the settling time) are {@code time}. */
  private RedisStores openIn(VirtualTime time) {
    return nodes.open(Nodes.settings(server.uri(), TIMEOUT, 2, FailurePolicy.LOCAL, time), time);
  }

  /** One decision on a fresh key: the node learns the epoch, and the rule under test is not spent. */
  private void probe(RedisStores node) {
    Nodes.decide(
        node,
        new RateRequest(
            "probe-" + UUID.randomUUID(), "p", Algorithm.TOKEN_BUCKET, TWENTY_AN_HOUR, 1),
        Duration.ofSeconds(1));
    assertThat(rates(node).knowsEpoch()).isTrue();
  }

  private static RedisRateStore rates(RedisStores node) {
    return (RedisRateStore) node.rates();
  }

  @Test
  void killAndEmptyRestartMidRunCostsAboutOneLocalShare() throws Exception {
    // the worst split: one node used the whole limit, so the other has its full share in the outage
    assertThat(hammer(List.of(cluster.get(0)), 60)).isEqualTo(20);

    server.kill();
    awaitDown();
    long fromTheBusyNode = hammer(List.of(cluster.get(0)), 50);
    long fromTheIdleNode = hammer(List.of(cluster.get(1)), 50);
    long duringOutage = fromTheBusyNode + fromTheIdleNode;
    server.restart();
    awaitUp();
    long afterRestart = hammer(cluster, 200);

    System.out.println("reconcile kill + empty restart: overshoot " + (duringOutage + afterRestart)
        + " (" + duringOutage + " while down: " + fromTheBusyNode + " on the node that had used the"
        + " limit, " + fromTheIdleNode + " on the other; " + afterRestart
        + " after; limit 20, local share 10)");
    // one local share: the first scripts to reach the empty Redis find the epoch gone and decide
    // nothing, and the nodes go on with their shares of the outage until both have charged
    assertThat(duringOutage + afterRestart).isLessThanOrEqualTo(SHARE);
  }

  @Test
  void anOutageWithoutLossIsChargedBackWhenRedisAnswersAgain() throws Exception {
    assertThat(hammer(List.of(cluster.get(0)), 15)).isEqualTo(15); // 5 left in Redis

    server.command("CLIENT", "PAUSE", "6000", "ALL");
    awaitDown();
    long duringOutage = hammer(cluster, 100);
    awaitUp();
    long afterResume = hammer(cluster, 200);

    System.out.println("reconcile CLIENT PAUSE: " + (15 + duringOutage + afterResume)
        + " admitted in all (" + duringOutage + " while down, " + afterResume
        + " after; limit 20, local share 10)");
    assertThat(15 + duringOutage + afterResume).isLessThanOrEqualTo(20 + SHARE);
    assertThat(afterResume)
        .as("the debts were paid: nothing left once Redis answers")
        .isLessThanOrEqualTo(Math.max(0, 5 - duringOutage) + 2);
  }
}
