package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.time.NanoClock;
import dev.sluice.time.Scheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Several nodes (each its own Lettuce client and clock, the clocks minutes apart) hammer one key
 * from many threads: Redis alone decides, so the total admitted is the global limit.
 */
@Tag("integration")
class GlobalLimitTest {

  private static final int NODES = 3;
  private static final int THREADS_PER_NODE = 6;
  private static final long LIMIT = 120;
  private static final Duration PERIOD = Duration.ofHours(1);
  /** Generous, so that no decision degrades on a loaded machine: the count must be Redis's alone. */
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private Nodes nodes;
  private List<RedisStores> cluster;

  @BeforeEach
  void openNodes() {
    nodes = new Nodes();
    cluster = new ArrayList<>();
    for (int i = 0; i < NODES; i++) {
      // node clocks minutes apart, one far in the past and one far ahead: Redis's TIME decides
      long skew = Duration.ofMinutes((i - 1) * 7L + ThreadLocalRandom.current().nextInt(3))
          .toNanos();
      NanoClock skewed = () -> System.nanoTime() + skew;
      cluster.add(nodes.open(
          Nodes.settings(REDIS.server().uri(), TIMEOUT, NODES, FailurePolicy.DENY, skewed),
          Scheduler.system()));
    }
  }

  @AfterEach
  void closeNodes() {
    nodes.close();
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"TOKEN_BUCKET", "GCRA", "FIXED_WINDOW", "SLIDING_LOG", "LEAKY_BUCKET"})
  void nodesHammeringOneKeyAdmitExactlyTheLimit(Algorithm algorithm) throws Exception {
    Hammered result = hammer(algorithm, 3 * (int) LIMIT);

    assertThat(result.admitted()).isEqualTo(LIMIT);
    assertThat(cluster).allSatisfy(node -> assertThat(node.degradedDecisions()).isZero());
  }

  /**
   * The sliding window counter weighs the previous window by its overlap: a burst of length d
   * that straddles a window edge can admit up to {@code limit * d / period} more (README).
   */
  @Test
  void theSlidingWindowCounterStaysWithinItsStatedError() throws Exception {
    Hammered result = hammer(Algorithm.SLIDING_WINDOW, 3 * (int) LIMIT);

    long bound = LIMIT + (long) Math.ceil(LIMIT * (double) result.nanos() / PERIOD.toNanos());
    assertThat(result.admitted()).isBetween(LIMIT, bound);
    assertThat(cluster).allSatisfy(node -> assertThat(node.degradedDecisions()).isZero());
  }

  @Test
  void aNodeWhoseClockRunsMinutesAheadGetsNoExtraTokens() {
    RateRequest request = new RateRequest(
        "skew-" + UUID.randomUUID(), "actor", Algorithm.TOKEN_BUCKET, RateLimit.of(10, PERIOD), 1);
    RedisStores behind = cluster.get(0);
    RedisStores ahead = cluster.get(2);
    for (int i = 0; i < 10; i++) {
      assertThat(decide(behind, request, TIMEOUT).allowed()).isTrue();
    }

    RateDecision fromTheFuture = decide(ahead, request, TIMEOUT);

    assertThat(fromTheFuture.allowed()).isFalse();
    // one token comes back every 6 minutes of Redis time, whatever either node's clock says
    assertThat(fromTheFuture.retryAfterNanos())
        .isBetween(Duration.ofMinutes(5).toNanos(), Duration.ofMinutes(6).toNanos());
  }

  private Hammered hammer(Algorithm algorithm, int attempts) throws Exception {
    RateRequest request = new RateRequest(
        "hammer-" + UUID.randomUUID(), "one-actor", algorithm, RateLimit.of(LIMIT, PERIOD), 1);
    long start = System.nanoTime();
    long admitted = Nodes.hammer(cluster, THREADS_PER_NODE, request, attempts, TIMEOUT);
    return new Hammered(admitted, System.nanoTime() - start);
  }

  private record Hammered(long admitted, long nanos) {}
}
