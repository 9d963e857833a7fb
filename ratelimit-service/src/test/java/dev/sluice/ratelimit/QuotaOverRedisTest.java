package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.simulated.QuotaProxy.bucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.ratelimit.simulated.QuotaProxy;
import dev.sluice.redis.RedisServer;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Two replicas of the service on one real redis-server: the proxies of both report one bucket,
 * and the replicas divide its quota as one.
 */
@Tag("integration")
class QuotaOverRedisTest {

  private static final BucketId API = bucket("name", "api");

  // the demands expire on Redis's own clock: long enough that a slow machine never loses one
  // between two reports of a test
  private static final Map<String, String> PROPERTIES = Map.of(
      "sluice.ratelimit-service.quota.default", "100/1s",
      "sluice.ratelimit-service.quota.assignment-ttl", "60s");

  private RedisServer redis;
  private QuotaFixture first;
  private QuotaFixture second;
  private VirtualTime time;

  @BeforeEach
  void start() throws Exception {
    redis = RedisServer.start();
    time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    first = replica();
    second = replica();
  }

  private QuotaFixture replica() throws Exception {
    return new QuotaFixture(
        PROPERTIES, time, RedisDemands.open(redis.uri(), Duration.ofSeconds(2)));
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

  private static long perSecond(RateLimitStrategy s) {
    return s.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
  }

  private int[] second(QuotaProxy[] proxies, int[] demands) {
    int[] passed = new int[proxies.length];
    for (int i = 0; i < proxies.length; i++) {
      passed[i] = proxies[i].requests(API, demands[i]);
    }
    time.advance(Duration.ofSeconds(1));
    for (QuotaProxy p : proxies) {
      p.report();
    }
    return passed;
  }

  @Test
  void proxiesOnTwoReplicasShareOneQuotaByDemand() {
    QuotaProxy light = first.proxy();
    QuotaProxy heavy = second.proxy();
    QuotaProxy[] both = {light, heavy};
    int[] demands = {10, 300};
    for (int round = 0; round < 3; round++) {
      second(both, demands);
    }
    assertThat(perSecond(light.enforcing(API))).isEqualTo(10);
    assertThat(perSecond(heavy.enforcing(API))).isEqualTo(90);
    int[] passed = second(both, demands);
    assertThat(passed[0]).isEqualTo(10);
    assertThat(passed[0] + passed[1]).isEqualTo(100);
  }

  @Test
  void aProxyLeavingOneReplicaGivesItsShareToTheOther() {
    QuotaProxy stays = first.proxy();
    QuotaProxy leaves = second.proxy();
    QuotaProxy[] both = {stays, leaves};
    second(both, new int[] {200, 200});
    second(both, new int[] {200, 200});
    assertThat(perSecond(stays.enforcing(API))).isEqualTo(50);
    leaves.leave();
    assertThat(leaves.next()).isEqualTo("completed");
    // the withdrawal reaches Redis on the other replica's connection: a report may still see it
    await().untilAsserted(() -> {
      second(new QuotaProxy[] {stays}, new int[] {200});
      assertThat(perSecond(stays.enforcing(API))).isEqualTo(100);
    });
  }

  @Test
  void whileRedisIsDownEachReplicaAnswersFromTheLastDivision() {
    QuotaProxy light = first.proxy();
    QuotaProxy heavy = second.proxy();
    QuotaProxy[] both = {light, heavy};
    int[] demands = {10, 300};
    for (int round = 0; round < 3; round++) {
      second(both, demands);
    }
    redis.kill();
    for (int round = 0; round < 2; round++) {
      int[] passed = second(both, demands);
      assertThat(passed[0] + passed[1]).isEqualTo(100);
    }
    assertThat(perSecond(light.enforcing(API))).isEqualTo(10);
    assertThat(perSecond(heavy.enforcing(API))).isEqualTo(90);
  }

  @Test
  void aProxyWhoseReplicaStopsKeepsItsAssignmentAndReportsToTheOtherReplica() {
    try (QuotaProxy proxy = new QuotaProxy(
        List.of(first.server.port(), second.server.port()),
        0,
        time,
        "envoy",
        QuotaFixture.ALLOW_ALL)) {
      proxy.requests(API, 200);
      time.advance(Duration.ofSeconds(1));
      proxy.report();
      assertThat(perSecond(proxy.enforcing(API))).isEqualTo(100);

      first.close(); // completes its streams, as a replica that stops does
      await().until(proxy::streamEnded);
      assertThat(perSecond(proxy.enforcing(API)))
          .as("the assignment holds until its TTL")
          .isEqualTo(100);

      proxy.requests(API, 200);
      time.advance(Duration.ofSeconds(1));
      proxy.report();
      assertThat(proxy.port()).isEqualTo(second.server.port());
      assertThat(perSecond(proxy.enforcing(API))).isEqualTo(100);
    }
  }
}
