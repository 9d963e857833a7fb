package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import dev.sluice.time.VirtualTime;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Batched mode: permits taken from Redis in batches, handed out locally, unused ones given back. */
@Tag("integration")
class BatchedModeTest {

  private static final Duration TIMEOUT = Duration.ofSeconds(5);
  private static final int BATCH = 10;

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private Nodes nodes;

  @BeforeEach
  void open() {
    nodes = new Nodes();
  }

  @AfterEach
  void close() {
    nodes.close();
  }

  private URI batched() {
    return URI.create(REDIS.server().uri() + "?batch=" + BATCH + "&batch-sync=1s");
  }

  private RedisStores node(Scheduler scheduler) {
    return nodes.open(
        Nodes.settings(batched(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()), scheduler);
  }

  private static RateRequest request(Algorithm algorithm, long limit) {
    return new RateRequest(
        "batched-" + UUID.randomUUID(),
        "actor",
        algorithm,
        RateLimit.of(limit, Duration.ofHours(1)),
        1);
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"TOKEN_BUCKET", "GCRA", "LEAKY_BUCKET"})
  void nodesHandingOutBatchesNeverAdmitMoreThanTheLimit(Algorithm algorithm) throws Exception {
    List<RedisStores> cluster =
        List.of(node(Scheduler.system()), node(Scheduler.system()), node(Scheduler.system()));
    RateRequest request = request(algorithm, 120);
    long admitted = Nodes.hammer(cluster, 4, request, 360, TIMEOUT);

    // never more than Redis counted; fewer by at most what other nodes still hold parked
    assertThat(admitted).isBetween(120L - 3 * (BATCH - 1), 120L);
    assertThat(cluster).allSatisfy(node -> assertThat(node.degradedDecisions()).isZero());
  }

  @Test
  void aBatchCostsOneRoundTrip() {
    RedisStores node = node(Scheduler.system());
    RateRequest request = request(Algorithm.TOKEN_BUCKET, 1_000_000);
    decide(node, request, TIMEOUT);
    long before = scriptCalls();

    for (int i = 0; i < 10 * BATCH - 1; i++) {
      assertThat(decide(node, request, TIMEOUT).allowed()).isTrue();
    }

    assertThat(scriptCalls() - before).as("99 decisions after the first batch").isEqualTo(9);
  }

  @Test
  void unusedPermitsGoBackToRedisEverySyncInterval() {
    VirtualTime scheduler = new VirtualTime();
    RedisStores holder = node(scheduler);
    RedisStores other = node(Scheduler.system());
    RateRequest request = request(Algorithm.GCRA, BATCH);
    assertThat(decide(holder, request, TIMEOUT).allowed()).isTrue();
    assertThat(decide(other, request, TIMEOUT).allowed())
        .as("the rest is parked on the holder")
        .isFalse();

    scheduler.advance(Duration.ofSeconds(1));

    List<Boolean> afterSync = new ArrayList<>();
    await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(20)).until(() -> {
      afterSync.add(decide(other, request, TIMEOUT).allowed());
      return afterSync.contains(true);
    });
    for (int i = 0; i < BATCH; i++) {
      afterSync.add(decide(other, request, TIMEOUT).allowed());
    }
    assertThat(afterSync.stream().filter(allowed -> allowed).count()).isEqualTo(BATCH - 1);
  }

  @Test
  void closingANodeGivesItsParkedPermitsBack() {
    RedisStores holder = node(Scheduler.system());
    RateRequest request = request(Algorithm.TOKEN_BUCKET, BATCH);
    decide(holder, request, TIMEOUT);

    holder.close();
    RedisStores other = node(Scheduler.system());

    long admitted = 0;
    for (int i = 0; i < BATCH; i++) {
      admitted += decide(other, request, TIMEOUT).allowed() ? 1 : 0;
    }
    assertThat(admitted).isEqualTo(BATCH - 1);
  }

  @Test
  void aRequestCostingMoreThanIsLeftIsRefusedAndWhatWasLeftServesTheNextOne() {
    RedisStores plain = nodes.open(
        Nodes.settings(REDIS.server().uri(), TIMEOUT, 3, FailurePolicy.DENY, NanoClock.system()),
        Scheduler.system());
    RedisStores node = node(new VirtualTime()); // no sync gives the batch back meanwhile
    RateRequest one = request(Algorithm.TOKEN_BUCKET, BATCH);
    for (int i = 0; i < BATCH - 2; i++) {
      assertThat(decide(plain, one, TIMEOUT).allowed()).isTrue();
    }

    RateDecision refused = decide(node, withCost(one, 4), TIMEOUT);

    // two were left: two short, and a permit comes back every tenth of the hour
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.retryAfterNanos()).isEqualTo(2 * one.limit().nanosPerPermit());
    long before = scriptCalls();
    RateDecision two = decide(node, withCost(one, 2), TIMEOUT);
    assertThat(two.allowed()).as("the two taken were kept on this node").isTrue();
    assertThat(two.remaining()).isZero();
    assertThat(scriptCalls() - before).as("served without Redis").isZero();
    assertThat(decide(node, one, TIMEOUT).allowed()).isFalse();
    assertThat(decide(plain, one, TIMEOUT).allowed()).isFalse();
  }

  @Test
  void aBatchSaysHowManyOfItAreLeftOnThisNode() {
    RedisStores node = node(new VirtualTime()); // no sync gives the batch back meanwhile
    RateRequest one = request(Algorithm.GCRA, 100);

    RateDecision first = decide(node, one, TIMEOUT);

    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isEqualTo(BATCH - 1);
    assertThat(decide(node, one, TIMEOUT).remaining()).isEqualTo(BATCH - 2);
  }

  @Test
  void aSyncSendsNothingForABatchThatWasUsedUp() {
    VirtualTime scheduler = new VirtualTime();
    RedisStores node = node(scheduler);
    RateRequest one = request(Algorithm.GCRA, 100);
    for (int i = 0; i < BATCH; i++) {
      assertThat(decide(node, one, TIMEOUT).allowed()).isTrue();
    }
    long before = scriptCalls();

    scheduler.advance(Duration.ofSeconds(1)); // the sync
    assertThat(decide(node, one, TIMEOUT).allowed()).isTrue();

    // the next batch only: on the same connection, a refund sent by the sync would come before it
    assertThat(scriptCalls() - before).isEqualTo(1);
  }

  @Test
  void aRequestCostingAWholeBatchIsAllowedWhenRedisHasItAll() {
    RedisStores node = node(Scheduler.system());
    RateRequest whole = withCost(request(Algorithm.TOKEN_BUCKET, 100), BATCH);

    RateDecision allowed = decide(node, whole, TIMEOUT);

    assertThat(allowed.allowed()).isTrue();
    assertThat(allowed.remaining()).isZero(); // nothing left over on this node
  }

  private static RateRequest withCost(RateRequest request, long cost) {
    return new RateRequest(
        request.ruleId(), request.key(), request.algorithm(), request.limit(), cost);
  }

  @Test
  void windowAlgorithmsAreNotBatched() {
    RedisStores node = node(Scheduler.system());
    RateRequest request = request(Algorithm.SLIDING_LOG, 1_000);
    decide(node, request, TIMEOUT); // loads the script (NOSCRIPT + EVAL the first time)
    long before = scriptCalls();

    for (int i = 0; i < 5; i++) {
      decide(node, request, TIMEOUT);
    }

    assertThat(scriptCalls() - before).isEqualTo(5);
  }

  private static long scriptCalls() {
    String info = REDIS.server().command("INFO", "commandstats");
    long calls = 0;
    for (String line : info.split("\n")) {
      if (line.startsWith("cmdstat_evalsha:") || line.startsWith("cmdstat_eval:")) {
        String rest = line.substring(line.indexOf("calls=") + 6);
        calls += Long.parseLong(rest.substring(0, rest.indexOf(',')));
      }
    }
    return calls;
  }
}
