package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Count locally, sync, compensate, against a real Redis: the breaker is opened and closed by the
 * test instead of by a fault, and the limits last an hour, so Redis refills nothing while a test
 * runs. A limit of 10 per hour on 2 nodes is a share of 5. The outages made by real faults are in
 * ReconcileTest, DegradationTest and NetworkFaultTest.
 */
@Tag("integration")
class OutageBookkeepingTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  /**
   * The decision timeout: a broken call costs a test this long, not more (a local Redis answers
   * in milliseconds).
   */
  private static final Duration TIMEOUT = Duration.ofSeconds(2);

  /**
   * The wait for what a node does by itself (a round trip, a reconnect): longer than one call's
   * {@link #TIMEOUT}, and short enough that a mutant that keeps it from happening fails the test
   * here, within PIT's timeout allowance for a test (4 s and more).
   */
  private static final Duration WAIT = Duration.ofSeconds(3);

  private final VirtualTime time = new VirtualTime();
  private final Nodes nodes = new Nodes();
  private final String actor = "actor-" + UUID.randomUUID();
  private final RateLimit limit = RateLimit.of(10, Duration.ofHours(1));

  @AfterEach
  void close() {
    nodes.close();
  }

  private RedisStores node(FailurePolicy policy) {
    return nodes.open(
        new StoreSettings(REDIS.server().uri(), TIMEOUT, 2, policy, time, Duration.ofSeconds(1)),
        time);
  }

  private RateRequest request(Algorithm algorithm) {
    return new RateRequest("rule", actor, algorithm, limit, 1);
  }

  private static RateDecision decide(RedisStores node, RateRequest request) {
    return node.rates()
        .tryAcquire(List.of(request))
        .toCompletableFuture()
        .join()
        .get(0);
  }

  private static int admitted(RedisStores node, RateRequest request, int tries) {
    int n = 0;
    for (int i = 0; i < tries; i++) {
      if (decide(node, request).allowed()) {
        n++;
      }
    }
    return n;
  }

  @Test
  void whileDownANodeDecidesOnItsShareAndCountsItAsDegraded() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));

    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 8)).isEqualTo(5);
    assertThat(node.degradedDecisions()).isEqualTo(8);
    assertThat(node.describe()).contains("(down, enforced locally at 1/2 of each limit");
  }

  @Test
  void whatTheShareAdmittedIsChargedToRedisWhenItAnswers() {
    RedisStores node = node(FailurePolicy.LOCAL);
    RedisStores other = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 3)).isEqualTo(3);

    node.guard().markUp();
    assertThat(decide(node, request(Algorithm.TOKEN_BUCKET)).allowed()).isTrue();

    // 3 charged, 1 decided in Redis: 6 left for every node
    assertThat(admitted(other, request(Algorithm.TOKEN_BUCKET), 10)).isEqualTo(6);
  }

  @Test
  void windowAlgorithmsAreChargedTheirCountToo() {
    RedisStores node = node(FailurePolicy.LOCAL);
    RedisStores other = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(admitted(node, request(Algorithm.FIXED_WINDOW), 4)).isEqualTo(4);

    node.guard().markUp();
    decide(node, request(Algorithm.FIXED_WINDOW));

    assertThat(admitted(other, request(Algorithm.FIXED_WINDOW), 10)).isEqualTo(5);
  }

  @Test
  void anIdleNodeChargesWhatItsShareAdmittedOnceItsProbeFindsRedisAnswering() {
    RedisStores node = node(FailurePolicy.LOCAL);
    RedisStores other = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(admitted(node, request(Algorithm.FIXED_WINDOW), 3)).isEqualTo(3);

    // the node decides nothing more: its own probe finds Redis and pays what it owes
    await().atMost(WAIT).until(() -> {
      time.advance(Guard.OPEN_FOR); // the probe's schedule and the breaker run on this clock
      return node.guard().state() == RedisState.UP;
    });
    assertThat(admitted(other, request(Algorithm.FIXED_WINDOW), 10)).isEqualTo(7);
  }

  @Test
  void aShareStartsWithWhatTheNodeAdmittedThroughRedis() {
    RedisStores node = node(FailurePolicy.LOCAL);
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 4)).isEqualTo(4);

    node.guard().markDown(new IllegalStateException("test"));

    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 3)).isEqualTo(1);
  }

  @Test
  void aRefundWhileDownGoesBackToTheShare() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 5)).isEqualTo(5);

    node.rates()
        .refund(List.of(request(Algorithm.TOKEN_BUCKET)))
        .toCompletableFuture()
        .join();

    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 2)).isEqualTo(1);
  }

  @Test
  void aRefundInRedisGivesThePermitBack() {
    RedisStores node = node(FailurePolicy.DENY);
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 11)).isEqualTo(10);

    node.rates()
        .refund(List.of(request(Algorithm.TOKEN_BUCKET), request(Algorithm.TOKEN_BUCKET)))
        .toCompletableFuture()
        .join();

    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 3)).isEqualTo(2);
    assertThat(node.rates().refund(List.of()).toCompletableFuture().join()).isNull();
  }

  @Test
  void aLossIsChargedWithWhatTheNodeAdmittedRecently() {
    RedisStores node = node(FailurePolicy.LOCAL);
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 4)).isEqualTo(4);
    REDIS.server().command("DEL", KeyLayout.rate("rule", actor, Algorithm.TOKEN_BUCKET));

    RedisRateStore rates = (RedisRateStore) node.rates();
    rates.lostState(((RedisPermitStore) node.permits()).link().commands());

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> "1"
            .equals(REDIS
                .server()
                .command("EXISTS", KeyLayout.rate("rule", actor, Algorithm.TOKEN_BUCKET))));
    assertThat(admitted(node(FailurePolicy.LOCAL), request(Algorithm.TOKEN_BUCKET), 10))
        .isEqualTo(6);
  }

  @Test
  void aLossStartsTheSharesAfresh() {
    RedisStores node = node(FailurePolicy.LOCAL);
    node.guard().markDown(new IllegalStateException("test"));
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 2)).isEqualTo(2);
    RedisRateStore rates = (RedisRateStore) node.rates();

    rates.lostState(((RedisPermitStore) node.permits()).link().commands());

    // seeded again with the 2 admitted: 3 left of the share, and the debts are charged as recent
    assertThat(admitted(node, request(Algorithm.TOKEN_BUCKET), 5)).isEqualTo(3);
  }

  @Test
  void denyRefusesWhileDownAndAllowAdmits() {
    RedisStores deny = node(FailurePolicy.DENY);
    RedisStores allow = node(FailurePolicy.ALLOW);
    deny.guard().markDown(new IllegalStateException("test"));
    allow.guard().markDown(new IllegalStateException("test"));

    assertThat(admitted(deny, request(Algorithm.TOKEN_BUCKET), 3)).isZero();
    assertThat(admitted(allow, request(Algorithm.TOKEN_BUCKET), 30)).isEqualTo(30);
    assertThat(deny.health().state()).isEqualTo("down");
    assertThat(deny.health().degradedDecisions()).isEqualTo(3);
  }

  @Test
  void anEmptyRequestIsDecidedAtOnce() {
    RedisStores node = node(FailurePolicy.DENY);

    assertThat(node.rates().tryAcquire(List.of()).toCompletableFuture().join()).isEmpty();
    assertThat(node.degradedDecisions()).isZero();
  }

  @Test
  void upItSaysWhereRedisIs() {
    RedisStores node = node(FailurePolicy.DENY);

    assertThat(node.health().state()).isEqualTo("up");
    assertThat(node.describe()).startsWith("redis://127.0.0.1:" + REDIS.server().port() + " (up)");
    assertThat(node.rates().describe()).startsWith(node.describe());
    assertThat(node.toString()).isEqualTo(node.describe());
  }

  @Test
  void aRedisThatLostItsCountsIsSettledOnTheShareWhateverThePolicy() {
    RedisStores node = node(FailurePolicy.ALLOW);
    assertThat(decide(node, request(Algorithm.TOKEN_BUCKET)).allowed()).isTrue();
    assertThat(node.health().lostStates()).isZero();
    // what FLUSHALL does to the epoch and the counts, without touching the other tests' keys
    String state = KeyLayout.rate("rule", actor, Algorithm.TOKEN_BUCKET);
    REDIS.server().command("DEL", LossWatch.EPOCH_KEY, state);

    int admitted = admitted(node, request(Algorithm.TOKEN_BUCKET), 8);
    // the one admitted before is charged again
    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> "1".equals(REDIS.server().command("EXISTS", state)));

    // the share of 5 holds the one admitted before: 4, not the 8 ALLOW would let through
    assertThat(admitted).isEqualTo(4);
    assertThat(node.health().state()).isEqualTo("settling");
    assertThat(node.health().lostStates()).isEqualTo(1);
    assertThat(node.describe()).contains("[Redis lost its counts");

    time.advance(LossWatch.POLL.multipliedBy(2).plus(TIMEOUT.multipliedBy(2)));

    assertThat(node.health().state()).isEqualTo("up");
  }

  @Test
  void aLossChargesWhatWasAdmittedLessWhatWasRefunded() {
    RedisStores node = node(FailurePolicy.LOCAL);
    RateRequest one = request(Algorithm.TOKEN_BUCKET);
    assertThat(admitted(node, one, 4)).isEqualTo(4);
    // 7 more do not fit: refused, and not counted as admitted
    assertThat(decide(node, new RateRequest("rule", actor, Algorithm.TOKEN_BUCKET, limit, 7))
            .allowed())
        .isFalse();
    node.rates().refund(List.of(one)).toCompletableFuture().join();
    String state = KeyLayout.rate("rule", actor, Algorithm.TOKEN_BUCKET);
    REDIS.server().command("DEL", state);

    RedisRateStore rates = (RedisRateStore) node.rates();
    rates.lostState(((RedisPermitStore) node.permits()).link().commands());

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> "1".equals(REDIS.server().command("EXISTS", state)));
    // 4 admitted, 1 refunded: 3 charged again, 7 left for every node
    assertThat(admitted(node(FailurePolicy.LOCAL), one, 10)).isEqualTo(7);
  }

  @Test
  void aPromotedReplicaIsChargedWhatItLacks() {
    RedisStores node = node(FailurePolicy.LOCAL);
    String state = KeyLayout.rate("rule", actor, Algorithm.TOKEN_BUCKET);
    RedisRateStore rates = (RedisRateStore) node.rates();

    try (LoggedWarnings warnings = LoggedWarnings.of(RedisRateStore.class)) {
      rates.unreplicated(
          ((RedisPermitStore) node.permits()).link().commands(),
          new Replication.Promotion(
              false, List.of(new RateRequest("rule", actor, Algorithm.TOKEN_BUCKET, limit, 4))));

      assertThat(warnings.messages())
          .containsExactly("Redis at redis://127.0.0.1:" + REDIS.server().port()
              + " is a promoted replica that may lack the old master's last writes: charging it "
              + "again with what this node admitted since its copy ended (1 rule and actor "
              + "pair(s))");
    }

    await()
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(5))
        .until(() -> "1".equals(REDIS.server().command("EXISTS", state)));
    assertThat(admitted(node(FailurePolicy.LOCAL), request(Algorithm.TOKEN_BUCKET), 10))
        .isEqualTo(6);
  }
}
