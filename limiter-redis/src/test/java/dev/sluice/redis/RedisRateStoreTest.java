package dev.sluice.redis;

import static dev.sluice.redis.Nodes.decide;
import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What each script decides, against a real redis-server. */
@Tag("integration")
class RedisRateStoreTest {

  /** The decision timeout, and the wait for a decision: a broken call costs a test this long. */
  private static final Duration BOUND = Duration.ofSeconds(2);

  @RegisterExtension
  static final RedisPerClass REDIS = new RedisPerClass();

  private static RedisServer server;
  private static Nodes nodes;
  private static RedisStores node;

  @BeforeAll
  static void start() {
    server = REDIS.server();
    nodes = new Nodes();
    node = nodes.open(server.uri(), BOUND, 1, FailurePolicy.DENY);
  }

  @AfterAll
  static void stop() {
    if (nodes != null) {
      nodes.close();
    }
  }

  private static RateRequest request(Algorithm algorithm, long limit, Duration period, long cost) {
    return new RateRequest(
        "rule-" + UUID.randomUUID(), "actor", algorithm, RateLimit.of(limit, period), cost);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void admitsUpToTheLimitThenRejectsWithARetryAfter(Algorithm algorithm) {
    RateRequest request = request(algorithm, 3, Duration.ofHours(1), 1);

    for (int i = 2; i >= 0; i--) {
      RateDecision decision = decide(node, request, BOUND);
      assertThat(decision.allowed()).as("permit %d", 3 - i).isTrue();
      assertThat(decision.remaining()).isEqualTo(i);
      assertThat(decision.limit()).isEqualTo(3);
    }
    RateDecision rejected = decide(node, request, BOUND);

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.remaining()).isZero();
    // the sliding window counter may have to wait into the next window: up to two periods
    assertThat(rejected.retryAfterNanos()).isBetween(1L, Duration.ofHours(2).toNanos());
    assertThat(node.degradedDecisions()).isZero();
  }

  private static RateDecision count(RateRequest request) {
    return node.rates()
        .countAndDecide(List.of(request))
        .toCompletableFuture()
        .orTimeout(BOUND.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)
        .join()
        .get(0);
  }

  private static RateRequest withCost(RateRequest request, long cost) {
    return new RateRequest(
        request.ruleId(), request.key(), request.algorithm(), request.limit(), cost);
  }

  @Test
  void aFixedWindowCountedWhateverTheCountUsesUpTheWindowWithRefusedRequestsToo() {
    RateRequest three = request(Algorithm.FIXED_WINDOW, 5, Duration.ofHours(1), 3);
    String state = KeyLayout.rate(three.ruleId(), three.key(), Algorithm.FIXED_WINDOW);

    RateDecision first = count(three);
    RateDecision second = count(three); // 6 of 5: refused, and counted
    RateDecision third = count(withCost(three, 1)); // 7 of 5: tryAcquire would have admitted it

    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isEqualTo(2);
    assertThat(second.allowed()).isFalse();
    assertThat(second.remaining()).isZero();
    assertThat(second.retryAfterNanos()).isBetween(1L, Duration.ofHours(2).toNanos());
    assertThat(third.allowed()).isFalse();
    assertThat(server.command("GET", state)).isEqualTo("7");
    long ttl = Long.parseLong(server.command("PTTL", state));
    assertThat(ttl).isBetween(1L, Duration.ofHours(1).toMillis());
    assertThat(node.degradedDecisions()).isZero();
  }

  @Test
  void aFixedWindowCountedWhateverTheCountAdmitsUpToExactlyItsLimit() {
    RateRequest two = request(Algorithm.FIXED_WINDOW, 4, Duration.ofHours(1), 2);

    RateDecision first = count(two);
    RateDecision second = count(two);
    RateDecision third = count(withCost(two, 1));

    assertThat(first.allowed()).isTrue();
    assertThat(first.remaining()).isEqualTo(2);
    assertThat(second.allowed()).isTrue();
    assertThat(second.remaining()).isZero();
    assertThat(third.allowed()).isFalse();
    // refunded permits come off the count, the refused included
    node.rates().refund(List.of(withCost(two, 3))).toCompletableFuture().join();
    assertThat(count(withCost(two, 2)).allowed()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(
      value = Algorithm.class,
      names = {"FIXED_WINDOW"},
      mode = EnumSource.Mode.EXCLUDE)
  void anotherAlgorithmCountedWhateverTheCountDecidesAsTryAcquire(Algorithm algorithm) {
    RateRequest three = request(algorithm, 5, Duration.ofHours(1), 3);

    assertThat(count(three).allowed()).isTrue();
    assertThat(count(three).allowed()).isFalse();
    assertThat(count(withCost(three, 2)).allowed()).isTrue();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void everyKeyExpiresWhenIdle(Algorithm algorithm) {
    RateRequest request = request(algorithm, 5, Duration.ofSeconds(10), 1);
    decide(node, request, BOUND);

    long ttl = Long.parseLong(
        server.command("PTTL", KeyLayout.rate(request.ruleId(), request.key(), algorithm)));

    assertThat(ttl).as("PTTL of the %s key", algorithm).isBetween(1L, 20_001L);
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void refundGivesThePermitsBack(Algorithm algorithm) {
    RateRequest request = request(algorithm, 2, Duration.ofHours(1), 1);
    decide(node, request, BOUND);
    decide(node, request, BOUND);
    assertThat(decide(node, request, BOUND).allowed()).isFalse();

    node.rates().refund(List.of(request)).toCompletableFuture().join();

    assertThat(decide(node, request, BOUND).allowed()).isTrue();
    assertThat(decide(node, request, BOUND).allowed()).isFalse();
  }

  @ParameterizedTest
  @EnumSource(Algorithm.class)
  void aCostAboveTheCapacityIsNeverAllowed(Algorithm algorithm) {
    RateDecision decision = decide(node, request(algorithm, 3, Duration.ofMinutes(1), 4), BOUND);

    assertThat(decision.allowed()).isFalse();
    assertThat(decision.retryAfterNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theShaperAdmitsWithTheDelayUntilTheCallersTurn() {
    RateRequest request = request(Algorithm.LEAKY_BUCKET_SHAPER, 10, Duration.ofSeconds(10), 1);

    long first = decide(node, request, BOUND).delayNanos();
    long second = decide(node, request, BOUND).delayNanos();
    long third = decide(node, request, BOUND).delayNanos();

    assertThat(first).isZero();
    // one emission interval (1 s) apart, less the microseconds that passed between the calls
    assertThat(second)
        .isBetween(Duration.ofMillis(500).toNanos(), Duration.ofSeconds(1).toNanos());
    assertThat(third - second)
        .isBetween(Duration.ofMillis(500).toNanos(), Duration.ofSeconds(1).toNanos());
  }

  @Test
  void theRulesOfOneRequestAreDecidedTogetherInOrder() {
    RateRequest roomy = request(Algorithm.TOKEN_BUCKET, 5, Duration.ofHours(1), 1);
    RateRequest tight = request(Algorithm.FIXED_WINDOW, 1, Duration.ofHours(1), 1);
    RateRequest log = request(Algorithm.SLIDING_LOG, 3, Duration.ofHours(1), 1);
    decide(node, tight, BOUND);

    List<RateDecision> decisions = node.rates()
        .tryAcquire(List.of(roomy, tight, log))
        .toCompletableFuture()
        .join();

    assertThat(decisions).extracting(RateDecision::allowed).containsExactly(true, false, true);
    assertThat(decisions).extracting(RateDecision::remaining).containsExactly(4L, 0L, 2L);
  }

  @Test
  void decisionsCallScriptsByDigestAndReloadThemAfterAFlush() {
    RateRequest request = request(Algorithm.GCRA, 100, Duration.ofHours(1), 1);
    decide(node, request, BOUND);
    long evalshaBefore = calls("evalsha");
    long evalBefore = calls("eval");

    decide(node, request, BOUND);
    assertThat(calls("evalsha")).isEqualTo(evalshaBefore + 1);
    assertThat(calls("eval")).isEqualTo(evalBefore);

    server.command("SCRIPT", "FLUSH");
    RateDecision afterFlush = decide(node, request, BOUND);
    decide(node, request, BOUND);

    assertThat(afterFlush.allowed()).isTrue();
    assertThat(afterFlush.remaining()).isEqualTo(97);
    assertThat(calls("eval"))
        .as("one EVAL after NOSCRIPT, then EVALSHA again")
        .isEqualTo(evalBefore + 1);
    assertThat(calls("evalsha")).isEqualTo(evalshaBefore + 3);
    assertThat(node.degradedDecisions()).isZero();
  }

  /** Calls of one command so far, from INFO commandstats. */
  private static long calls(String command) {
    String info = server.command("INFO", "commandstats");
    for (String line : info.split("\n")) {
      if (line.startsWith("cmdstat_" + command + ":")) {
        String calls = line.substring(line.indexOf("calls=") + 6);
        return Long.parseLong(calls.substring(0, calls.indexOf(',')));
      }
    }
    return 0;
  }
}
