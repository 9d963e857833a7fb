package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.redis.RedisServer;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Two replicas of the service, one real redis-server: one limit between them. */
@Tag("integration")
class SharedLimitOverRedisTest {

  private static final String YAML = """
      domain: api
      descriptors:
        - key: user
          rate_limit:
            unit: minute
            requests_per_unit: 5
        - key: burst
          rate_limit:
            unit: hour
            requests_per_unit: 5
            algorithm: token-bucket
        - key: tick
          rate_limit:
            unit: second
            requests_per_unit: 3
      """;

  private RedisServer redis;
  private RlsFixture first;
  private RlsFixture second;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    // both replicas read one clock, as two hosts whose clocks agree (envoy/ratelimit's premise)
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    first = replica(time);
    second = replica(time);
  }

  private RlsFixture replica(VirtualTime time) throws Exception {
    Counters counters = RateLimitServiceMain.counters(
        Optional.of(new StoreSettings(
            redis.uri(), Duration.ofSeconds(2), 2, FailurePolicy.LOCAL, NanoClock.system())),
        time);
    assertThat(counters).isInstanceOf(StoreCounters.class);
    return new RlsFixture(DescriptorConfig.parse("api.yaml", YAML), time, counters);
  }

  @AfterEach
  void stop() throws Exception {
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

  @Test
  void twoReplicasShareOneLimit() {
    RateLimitRequest alice = request("api", descriptor("user", "alice"));
    assertThat(first.ask(alice, 3).getStatuses(0).getLimitRemaining()).isEqualTo(2);
    assertThat(second.ask(alice, 2).getStatuses(0).getLimitRemaining()).isZero();
    assertThat(first.ask(alice).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(second.ask(alice).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(second.ask(request("api", descriptor("user", "bob"))).getOverallCode())
        .isEqualTo(Code.OK);
  }

  @Test
  void theNextEpochWindowCountsOnAFreshKey() {
    RateLimitRequest alice = request("api", descriptor("user", "alice"));
    first.ask(alice, 5);
    assertThat(second.ask(alice).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    first.time.advance(Duration.ofMinutes(1));
    assertThat(second.ask(alice).getStatuses(0).getLimitRemaining()).isEqualTo(4);
  }

  @Test
  void aDecisionThatReachesRedisAfterItsWindowEndedStillCountsOnThatWindow() {
    // the replicas' clock stays in the window; Redis's own clock runs on past its end, as it does
    // for a decision read at the end of a window whose script runs in Redis a moment later
    RateLimitRequest tick = request("api", descriptor("tick", "alice"));
    assertThat(first.ask(tick, 3).getStatuses(0).getLimitRemaining()).isZero();
    long filled = redisMillis();
    await("Redis's clock one second past the window's last admission")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(50))
        .until(() -> redisMillis() - filled > 1000);
    assertThat(second.ask(tick).getOverallCode())
        .as("the window's 3 were admitted; a late decision must not open a new count")
        .isEqualTo(Code.OVER_LIMIT);
  }

  /** Redis's own clock ({@code TIME}), in milliseconds. */
  private long redisMillis() {
    String[] time = redis.command("TIME").split("\n");
    return Long.parseLong(time[0].trim()) * 1000 + Long.parseLong(time[1].trim()) / 1000;
  }

  @Test
  void aTokenBucketDescriptorIsOneBucketBetweenTheReplicas() {
    // 5 an hour: a token comes back every 12 minutes of the store's clock, none within this test
    RateLimitRequest burst = request("api", descriptor("burst", "alice"));
    assertThat(first.ask(burst, 3).getStatuses(0).getLimitRemaining()).isEqualTo(2);
    assertThat(second.ask(burst, 2).getStatuses(0).getLimitRemaining()).isZero();
    assertThat(first.ask(burst).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(second.ask(burst).getOverallCode()).isEqualTo(Code.OVER_LIMIT);
    assertThat(first.ask(request("api", descriptor("user", "alice"))).getOverallCode())
        .as("the fixed-window descriptor of the same value counts apart")
        .isEqualTo(Code.OK);
  }
}
