package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What a caller can put into the scripts' keys and arguments, against a real redis-server (the
 * scripts have no pure-Java seam): actors with odd bytes get keys of their own, and huge limits
 * (a rules file's {@code limit} goes up to {@code Long.MAX_VALUE}) are decided by the script,
 * never an error answered as a degraded decision. The costs are those the request path sends: 1
 * per request, and a batch's sum of local charges.
 */
@Tag("integration")
class OddCallerInputsTest {

  private static final Duration BOUND = Duration.ofSeconds(5);

  /** Brace, percent, NUL, a surrogate pair, control bytes, a long name, nothing at all. */
  private static final List<String> ODD_ACTORS = List.of(
      "a}b{c",
      "a%7Db%7Bc",
      "%",
      "nul\0byte",
      "\uD83D\uDE00 smile",
      "\r\n\t\u007f",
      "x".repeat(4_000),
      "");

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static Nodes nodes;
  private static RedisStores node;

  @BeforeAll
  static void start() {
    nodes = new Nodes();
    node = nodes.open(REDIS.server().uri(), BOUND, 1, FailurePolicy.DENY);
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void everyOddActorHasItsOwnQuota(Algorithm algorithm) {
    String rule = "odd-" + UUID.randomUUID();
    for (String actor : ODD_ACTORS) {
      RateRequest request =
          new RateRequest(rule, actor, algorithm, RateLimit.of(1, Duration.ofHours(1)), 1);

      assertThat(decide(node, request, BOUND).allowed())
          .as("first of %s", actor)
          .isTrue();
      assertThat(decide(node, request, BOUND).allowed())
          .as("second of %s", actor)
          .isFalse();
    }
    assertThat(node.degradedDecisions()).isZero();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void hugeLimitsAreDecidedNotErrors(Algorithm algorithm) {
    long[][] limitAndCost = {{Long.MAX_VALUE, 1}, {(1L << 53) + 1, 1}, {Long.MAX_VALUE, 1_000}};
    for (long[] lc : limitAndCost) {
      RateRequest request = new RateRequest(
          "huge-" + UUID.randomUUID(),
          "actor",
          algorithm,
          RateLimit.of(lc[0], Duration.ofDays(365)),
          lc[1]);

      RateDecision decision = decide(node, request, BOUND);

      assertThat(decision.remaining()).as("limit %d cost %d", lc[0], lc[1]).isNotNegative();
      if (lc[1] > lc[0]) {
        assertThat(decision.allowed()).as("cost %d over limit %d", lc[1], lc[0]).isFalse();
      }
    }
    assertThat(node.degradedDecisions())
        .as("decisions answered by the failure policy")
        .isZero();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aBucketThatResetsInCenturiesIsDecidedNotAnError(Algorithm algorithm) {
    // found by RateScriptsFuzzTest: the reset of 2,000 years overflowed on its way to nanoseconds
    long burst = algorithm == Algorithm.SLIDING_LOG ? 100_000 : 9_223_371_188_404_056_936L;
    RateRequest request = new RateRequest(
        "centuries-" + UUID.randomUUID(),
        "actor",
        algorithm,
        new RateLimit(2, Duration.ofHours(8_009), burst),
        4_435);

    RateDecision first = decide(node, request, BOUND);
    RateDecision second = decide(node, request, BOUND);

    if (EnumSet.of(
            Algorithm.TOKEN_BUCKET,
            Algorithm.GCRA,
            Algorithm.LEAKY_BUCKET,
            Algorithm.LEAKY_BUCKET_SHAPER)
        .contains(algorithm)) {
      // the bucket (its burst) holds the cost: admitted, full again in centuries (saturated)
      assertThat(first.allowed()).as("%s then %s", first, second).isTrue();
      assertThat(first.resetAfterNanos()).as("%s then %s", first, second).isPositive();
    }
    assertThat(node.degradedDecisions())
        .as("decisions answered by the failure policy")
        .isZero();
  }
}
