package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.VirtualTime;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * How a node finds that Redis lost its counts, against a real Redis, settling on a virtual clock.
 * A restarted or failed-over Redis is in ReconcileTest and SentinelTest.
 */
@Tag("integration")
class LossWatchTest {

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  /**
   * The wait for a poll's answer (one GET, bounded by {@link #TIMEOUT}): a mutant that keeps it
   * from coming fails the test here, within PIT's timeout allowance for a test (4 s and more).
   */
  private static final Duration WAIT = Duration.ofSeconds(2);

  private static final Duration TIMEOUT = Duration.ofMillis(200);

  private final VirtualTime time = new VirtualTime();
  private final AtomicInteger charged = new AtomicInteger();
  private Link link;
  private LossWatch loss;
  private RedisScriptingAsyncCommands<String, String> redis;

  @BeforeEach
  void open() {
    StoreSettings settings =
        new StoreSettings(REDIS.server().uri(), TIMEOUT, 2, FailurePolicy.LOCAL, time);
    CallBound bound = new CallBound(settings, time);
    bound.started();
    link = new Link(settings, UriOptions.parse(REDIS.server().uri()), bound);
    link.connect().join();
    redis = link.commands();
    loss = new LossWatch(link, time, time, bound, true, on -> charged.incrementAndGet());
    REDIS.server().command("SET", LossWatch.EPOCH_KEY, "e1");
  }

  @AfterEach
  void close() {
    loss.close();
    link.close();
  }

  private void learn() {
    loss.ask(redis).join();
    assertThat(loss.known()).isEqualTo("e1");
  }

  @Test
  void aNodeKnowsNoEpochBeforeItAsks() {
    assertThat(loss.known()).isEmpty();
    assertThat(loss.learnt()).isFalse();
    assertThat(loss.knownUnlessSettling()).isEmpty();
    assertThat(loss.inScripts()).isTrue();
  }

  @Test
  void theFirstAnswerIsLearntNotALoss() {
    loss.ask(redis).join();

    assertThat(loss.known()).isEqualTo("e1");
    assertThat(loss.learnt()).isTrue();
    assertThat(loss.losses()).isZero();
    assertThat(loss.settling()).isFalse();
  }

  @Test
  void aRedisWithoutEpochGetsOne() {
    REDIS.server().command("DEL", LossWatch.EPOCH_KEY);

    loss.ask(redis).join();

    String written = REDIS.server().command("GET", LossWatch.EPOCH_KEY);
    assertThat(written).isNotBlank();
    assertThat(loss.known()).isEqualTo(written);
    assertThat(loss.losses()).isZero();
  }

  @Test
  void aVanishedEpochIsALossChargedOnceThenSettled() {
    learn();
    REDIS.server().command("DEL", LossWatch.EPOCH_KEY);

    loss.ask(redis).join();

    assertThat(loss.losses()).isEqualTo(1);
    assertThat(charged).hasValue(1);
    assertThat(loss.learnt()).isTrue();
    assertThat(loss.known()).isEqualTo(REDIS.server().command("GET", LossWatch.EPOCH_KEY));
    assertThat(loss.settling()).isTrue();
    assertThat(loss.knownUnlessSettling()).isNull();
    assertThat(loss.describe("redis (up)"))
        .isEqualTo("redis (up) [Redis lost its counts: global rules on this node's share, no new "
            + "lease, for " + Duration.ofNanos(loss.settleNanos()).toMillis() + " ms more]");

    loss.ask(redis).join();
    assertThat(loss.losses()).isEqualTo(1);

    time.advanceNanos(loss.settleNanos() - 1);
    assertThat(loss.settling()).isTrue();
    time.advanceNanos(1);
    assertThat(loss.settling()).isFalse();
    assertThat(loss.describe("redis (up)")).isEqualTo("redis (up)");
    assertThat(loss.knownUnlessSettling()).isEqualTo(loss.known());
  }

  @Test
  void settlingLastsTwoPollsAndTwoTimeouts() {
    assertThat(loss.settleNanos()).isEqualTo(2 * LossWatch.POLL.toNanos() + 2 * TIMEOUT.toNanos());
  }

  @Test
  void anEpochAnotherNodeWroteIsALoss() {
    learn();
    REDIS.server().command("SET", LossWatch.EPOCH_KEY, "e2");

    loss.ask(redis).join();

    assertThat(loss.losses()).isEqualTo(1);
    assertThat(loss.known()).isEqualTo("e2");
  }

  @Test
  void aScriptTellsTheEpochFirstLearntThenLost() {
    loss.scriptSaw("e1", redis);
    assertThat(loss.known()).isEqualTo("e1");
    assertThat(loss.losses()).isZero();

    loss.scriptSaw("e1", redis);
    assertThat(loss.losses()).isZero();

    loss.scriptSaw("e3", redis);
    assertThat(loss.losses()).isEqualTo(1);
    assertThat(charged).hasValue(1);
    assertThat(loss.known()).isEqualTo("e3");
    assertThat(loss.settling()).isTrue();
  }

  @Test
  void theIdlePollAsksWhileUp() {
    AtomicBoolean up = new AtomicBoolean(false);
    AtomicInteger answered = new AtomicInteger();
    loss.startPolling(up::get, redis -> answered.incrementAndGet());
    time.advance(LossWatch.POLL);
    assertThat(loss.learnt()).isFalse();
    assertThat(answered).hasValue(0);

    up.set(true);
    time.advance(LossWatch.POLL);

    await().atMost(WAIT).pollInterval(Duration.ofMillis(2)).until(loss::learnt);
    await().atMost(WAIT).pollInterval(Duration.ofMillis(2)).until(() -> answered.get() == 1);
    loss.close();
    assertThat(time.pendingTasks()).isZero();
  }

  @Test
  void aClosedWatchStopsPolling() {
    loss.startPolling(() -> true, redis -> {});
    loss.close();

    time.advance(LossWatch.POLL);

    assertThat(loss.learnt()).isFalse();
  }
}
