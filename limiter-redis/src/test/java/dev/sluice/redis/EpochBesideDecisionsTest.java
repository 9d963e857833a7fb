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
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rate store as it runs in Redis Cluster, where the decision scripts cannot read the epoch (it
 * lives on another master): the epoch is asked with a GET beside the decisions, and first of all
 * after an outage. The store is put together as {@link RedisStores} does for a cluster, on one
 * standalone Redis: the scripts and the GET are the same, only the slots are missing.
 */
@Tag("integration")
class EpochBesideDecisionsTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static final Duration TIMEOUT = Duration.ofSeconds(2);
  private static final Duration WAIT = Duration.ofSeconds(3);

  private final VirtualTime time = new VirtualTime();
  private final String actor = "actor-" + UUID.randomUUID();
  private Link link;
  private Guard guard;
  private LossWatch loss;
  private RedisRateStore rates;

  @BeforeEach
  void open() {
    StoreSettings settings =
        new StoreSettings(REDIS.server().uri(), TIMEOUT, 2, FailurePolicy.ALLOW, time, TIMEOUT);
    CallBound bound = new CallBound(settings, time);
    bound.started();
    link = new Link(settings, UriOptions.parse(REDIS.server().uri()), bound);
    link.connect().join();
    guard = new Guard(link.where(), FailurePolicy.ALLOW, 2, bound, time);
    Recent recent = new Recent();
    LocalShare local = new LocalShare(FailurePolicy.ALLOW, 2, time, recent);
    RedisRateStore[] store = new RedisRateStore[1];
    loss = new LossWatch(link, time, time, bound, false, redis -> store[0].lostState(redis));
    rates = new RedisRateStore(
        link, guard, new RateScripts(), local, recent, time, loss, bound, null, null);
    store[0] = rates;
    guard.onDown(local::outageStarted);
    guard.onDown(rates::outageStarted);
  }

  @AfterEach
  void close() {
    loss.close();
    link.close();
  }

  private RateDecision decide() {
    RateRequest request = new RateRequest(
        "rule", actor, Algorithm.TOKEN_BUCKET, RateLimit.of(2, Duration.ofHours(1)), 1);
    return rates.tryAcquire(List.of(request)).toCompletableFuture().join().get(0);
  }

  @Test
  void theEpochIsLearntBesideTheFirstDecision() {
    assertThat(decide().allowed()).isTrue();

    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(rates::knowsEpoch);
    assertThat(guard.degradedDecisions()).isZero();
  }

  @Test
  void decisionsAreMadeInRedisWithoutTheEpochInTheScripts() {
    assertThat(decide().allowed()).isTrue();
    assertThat(decide().allowed()).isTrue();

    assertThat(decide().allowed()).as("the limit of 2, counted in Redis").isFalse();
    assertThat(guard.degradedDecisions()).isZero();
  }

  @Test
  void afterAnOutageALossIsFoundBeforeAnythingIsDecided() {
    decide();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(rates::knowsEpoch);
    guard.markDown(new IllegalStateException("test"));
    guard.markUp();
    // what FLUSHALL does to the epoch, without touching the other tests' keys
    REDIS.server().command("DEL", LossWatch.EPOCH_KEY);

    RateDecision first = decide();

    // decided on the share at once: the loss was found before the decision went to Redis
    assertThat(loss.losses()).isEqualTo(1);
    assertThat(loss.settling()).isTrue();
    assertThat(first.allowed())
        .as("the share of 1 holds the one admitted before")
        .isFalse();
    assertThat(guard.degradedDecisions()).isEqualTo(1);
  }

  @Test
  void afterAnOutageWithoutALossTheDecisionsGoToRedisAgain() {
    decide();
    await().atMost(WAIT).pollInterval(Duration.ofMillis(5)).until(rates::knowsEpoch);
    guard.markDown(new IllegalStateException("test"));
    guard.markUp();

    assertThat(decide().allowed()).isTrue();
    assertThat(decide().allowed()).as("the limit of 2, counted in Redis").isFalse();

    assertThat(loss.losses()).isZero();
    assertThat(guard.degradedDecisions()).isZero();
  }
}
