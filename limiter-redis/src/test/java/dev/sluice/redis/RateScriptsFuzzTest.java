package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The rate scripts' arguments at scale, against a real redis-server (the scripts have no pure-Java
 * seam): any rule id, actor, algorithm, limit, burst and period a rules file can name, with the
 * costs the request path sends (1 per request, a batch's sum of local charges: at most {@link
 * #MOST_COST} here), is decided by the script (never answered by the failure policy, which is what
 * a script error becomes), twice in a row, with figures that hold together. The corpus
 * (src/test/resources/dev/sluice/redis/RateScriptsFuzzTestInputs/) is replayed as a plain test
 * without JAZZER_FUZZ=1.
 */
@Tag("fuzz")
class RateScriptsFuzzTest {

  private static final Duration BOUND = Duration.ofSeconds(5);

  /** Above what one batch of local charges sums to in any test of the request path. */
  private static final long MOST_COST = 10_000;

  /**
   * The sliding log keeps one entry per permit (a ZADD each): a fuzzer that found a year-long period
   * would fill the server's memory and spend its time adding entries, so its limits stay at a size a
   * log is configured for.
   */
  private static final long MOST_LOG_LIMIT = 1_000;

  /** Periods up to a year, the longest a rules file's unit names in practice. */
  private static final long MOST_PERIOD_NANOS = Duration.ofDays(366).toNanos();

  /**
   * A state per key lives for its period: the rate states are dropped every so many executions.
   * Not by FLUSHALL: that also drops the epoch key, and the node rightly takes it for a lost Redis
   * and decides on its local share for a while.
   */
  private static final int DROP_EVERY = 5_000;

  private static final String DROP_RATE_STATES =
      "for _, k in ipairs(redis.call('KEYS', 'sluice:rate:*')) do redis.call('UNLINK', k) end";

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static Nodes nodes;
  private static RedisStores node;
  private static int executions;

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

  @FuzzTest(maxDuration = "45m", maxExecutions = 1_000_000)
  void anyRuleActorLimitAndCostIsDecidedByTheScript(FuzzedDataProvider data) {
    if (++executions % DROP_EVERY == 0) {
      REDIS.server().command("EVAL", DROP_RATE_STATES, "0");
    }
    Algorithm algorithm = data.pickValue(Algorithm.values());
    long most = algorithm == Algorithm.SLIDING_LOG ? MOST_LOG_LIMIT : Long.MAX_VALUE;
    long limit = data.consumeLong(1, most);
    long burst = data.consumeBoolean() ? limit : data.consumeLong(1, most);
    Duration period = Duration.ofNanos(data.consumeLong(1_000, MOST_PERIOD_NANOS));
    long cost = data.consumeLong(1, MOST_COST);
    String rule = data.consumeString(200);
    String actor = data.consumeRemainingAsString();
    RateRequest request =
        new RateRequest(rule, actor, algorithm, new RateLimit(limit, period, burst), cost);
    long degradedBefore = node.degradedDecisions();

    RateDecision first = decide(node, request, BOUND);
    RateDecision second = decide(node, request, BOUND);

    assertThat(node.degradedDecisions())
        .as("%s answered by the failure policy (a script error)", request)
        .isEqualTo(degradedBefore);
    for (RateDecision d : new RateDecision[] {first, second}) {
      assertThat(d.limit()).as("%s: %s", request, d).isPositive();
      if (d.allowed()) {
        assertThat(d.retryAfterNanos()).as("%s: %s", request, d).isZero();
      } else {
        assertThat(d.remaining()).as("%s: %s", request, d).isZero();
      }
    }
    if (cost > Math.max(limit, burst)) {
      assertThat(first.allowed())
          .as("%s: more than its capacity at once", request)
          .isFalse();
    }
  }
}
