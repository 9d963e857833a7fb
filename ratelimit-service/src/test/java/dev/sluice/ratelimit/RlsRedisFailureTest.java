package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.UInt64Value;
import dev.sluice.redis.RedisServer;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * What Envoy sees from two replicas of the service when their redis-server fails: an answer to
 * every request, never a gRPC error, decided by {@code sluice.redis.on-failure}: {@code local}
 * counts each replica alone at limit / expected-nodes, {@code deny} answers OVER_LIMIT for every
 * limited descriptor, {@code allow} answers OK; and once Redis answers again, one limit between the
 * replicas.
 */
@Tag("integration")
class RlsRedisFailureTest {

  // a day's window: the local share's own window cannot roll over within the test
  private static final String YAML = """
      domain: api
      descriptors:
        - key: user
          rate_limit:
            unit: day
            requests_per_unit: 10
      """;

  private RedisServer redis;
  private RlsFixture first;
  private RlsFixture second;

  private void start(FailurePolicy policy) throws Exception {
    redis = RedisServer.start();
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    first = replica(time, policy);
    second = replica(time, policy);
  }

  private RlsFixture replica(VirtualTime time, FailurePolicy policy) throws Exception {
    Counters counters = RateLimitServiceMain.counters(
        Optional.of(new StoreSettings(
            redis.uri(),
            Duration.ofMillis(200),
            2,
            policy,
            NanoClock.system(),
            Duration.ofMillis(500))),
        time);
    return new RlsFixture(DescriptorConfig.parse("api.yaml", YAML), time, counters);
  }

  @AfterEach
  void stop() {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
    if (redis != null) {
      redis.close();
    }
  }

  /** How many of {@code n} requests are answered OK; every one is answered (ask never throws). */
  private static int admitted(RlsFixture replica, RateLimitRequest request, int n) {
    int ok = 0;
    for (int i = 0; i < n; i++) {
      RateLimitResponse answer = replica.ask(request);
      assertThat(answer.getStatusesCount()).isEqualTo(1);
      ok += answer.getOverallCode() == Code.OK ? 1 : 0;
    }
    return ok;
  }

  @Test
  void redisKilledEachReplicaCountsAloneAtItsShareThenSharesAgainOnceRedisIsBack()
      throws Exception {
    start(FailurePolicy.LOCAL);
    RateLimitRequest alice = request("api", descriptor("user", "alice"));
    assertThat(admitted(first, alice, 4)).isEqualTo(4); // in Redis: 6 left between the two
    redis.kill();
    // 10 a day over 2 expected replicas: each admits 5 of its own, whatever Redis had counted
    assertThat(admitted(first, request("api", descriptor("user", "bob")), 8)).isEqualTo(5);
    assertThat(admitted(second, request("api", descriptor("user", "bob")), 8)).isEqualTo(5);
    assertThat(first.ask(request("api", descriptor("other", "x"))).getOverallCode())
        .as("a descriptor no limit covers")
        .isEqualTo(Code.OK);

    redis.restart(); // empty, on the same port
    awaitOneLimitBetweenTheReplicas("carol");
  }

  @Test
  void redisKilledWithDenyEveryLimitedDescriptorIsOverTheLimit() throws Exception {
    start(FailurePolicy.DENY);
    redis.kill();
    assertThat(admitted(first, request("api", descriptor("user", "dave")), 3)).isZero();
    assertThat(admitted(second, request("api", descriptor("user", "erin")), 3)).isZero();
    assertThat(first.ask(request("api", descriptor("other", "x"))).getOverallCode())
        .as("a descriptor no limit covers needs no store")
        .isEqualTo(Code.OK);
    assertThat(first.ask(request("elsewhere", descriptor("user", "x"))).getOverallCode())
        .as("a domain no file configures")
        .isEqualTo(Code.OK);
  }

  @Test
  void redisKilledWithAllowEveryRequestIsOk() throws Exception {
    start(FailurePolicy.ALLOW);
    redis.kill();
    assertThat(admitted(first, request("api", descriptor("user", "frank")), 15)).isEqualTo(15);
  }

  @Test
  void aFrozenRedisIsWaitedForNoLongerThanTheTimeout() throws Exception {
    start(FailurePolicy.LOCAL);
    RateLimitRequest grace = request("api", descriptor("user", "grace"));
    redis.pause();
    try {
      long started = System.nanoTime();
      RateLimitResponse answer = first.ask(grace);
      long tookMillis = (System.nanoTime() - started) / 1_000_000;
      assertThat(answer.getOverallCode()).isEqualTo(Code.OK);
      // the timeout (200 ms) and the bound on the whole call; far from the client's 10 s deadline
      assertThat(tookMillis).isLessThan(5_000);
      assertThat(admitted(first, grace, 7)).isEqualTo(4); // the local share: 5 with the first
    } finally {
      redis.resume();
    }
  }

  @Test
  void whatAReplicaAdmittedAloneIsCountedInRedisOnceItAnswersAgain() throws Exception {
    start(FailurePolicy.LOCAL);
    RateLimitRequest henry = request("api", descriptor("user", "henry"));
    redis.pause(); // frozen, its counters kept
    try {
      assertThat(admitted(first, henry, 3)).isEqualTo(3);
    } finally {
      redis.resume();
    }
    // the first decides nothing more: its own poll finds Redis and charges the three it admitted
    // alone, so the second finds 7 of 10 left (deciding alone it would say 5, its share)
    await("the local admissions reconciled")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> remainingInRedis(henry) == 7);
  }

  /** What the second replica answers as remaining, asked with a descriptor that counts nothing. */
  private long remainingInRedis(RateLimitRequest request) {
    RateLimitRequest check = request.toBuilder()
        .setDescriptors(0, request.getDescriptors(0).toBuilder().setHitsAddend(UInt64Value.of(0)))
        .build();
    return second.ask(check).getStatuses(0).getLimitRemaining();
  }

  @Test
  void redisAbsentAtStartTheReplicasStartAndDecideAlone() throws Exception {
    redis = RedisServer.start();
    int port = redis.port();
    redis.kill();
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    first = replica(time, FailurePolicy.LOCAL);
    assertThat(admitted(first, request("api", descriptor("user", "ivan")), 8)).isEqualTo(5);
    redis = RedisServer.onPort(port);
    second = replica(time, FailurePolicy.LOCAL);
    awaitOneLimitBetweenTheReplicas("judy");
  }

  /**
   * Waits until the replicas share one limit again: on a fresh user each time, the first admits 7
   * of 10 and the second then 3 (deciding alone, either would admit its share of 5).
   */
  private void awaitOneLimitBetweenTheReplicas(String user) {
    AtomicInteger round = new AtomicInteger();
    await("one limit between the replicas")
        .atMost(Duration.ofSeconds(15))
        .pollInterval(Duration.ofMillis(200))
        .until(() -> {
          RateLimitRequest fresh =
              request("api", descriptor("user", user + "-" + round.incrementAndGet()));
          admitted(first, fresh, 7);
          return admitted(second, fresh, 5) == 3;
        });
  }
}
