package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.simulated.QuotaProxy.bucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.sluice.ratelimit.simulated.QuotaProxy;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.BucketId;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse;
import io.envoyproxy.envoy.service.rate_limit_quota.v3.RateLimitQuotaServiceGrpc;
import io.envoyproxy.envoy.type.v3.RateLimitStrategy;
import io.envoyproxy.envoy.type.v3.RateLimitUnit;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.health.v1.HealthCheckRequest;
import io.grpc.health.v1.HealthCheckResponse.ServingStatus;
import io.grpc.health.v1.HealthGrpc;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * RLQS over a real port: test proxies that behave as Envoy's rate_limit_quota filter documents,
 * reporting every virtual second, and the division of each bucket's quota among them.
 */
class RateLimitQuotaServiceTest {

  private static final BucketId API = bucket("name", "api");

  private QuotaFixture fixture;

  @AfterEach
  void stop() {
    if (fixture != null) {
      fixture.close();
    }
  }

  private QuotaFixture start(Map<String, String> properties) throws Exception {
    fixture = new QuotaFixture(properties);
    return fixture;
  }

  private static long perSecond(RateLimitStrategy s) {
    assertThat(s.getRequestsPerTimeUnit().getTimeUnit()).isEqualTo(RateLimitUnit.SECOND);
    return s.getRequestsPerTimeUnit().getRequestsPerTimeUnit();
  }

  /** One second of traffic: each proxy sends its demand, then every proxy reports. */
  private static int[] second(QuotaFixture f, QuotaProxy[] proxies, int[] demands) {
    int[] passed = new int[proxies.length];
    for (int i = 0; i < proxies.length; i++) {
      passed[i] = proxies[i].requests(API, demands[i]);
    }
    f.time.advance(Duration.ofSeconds(1));
    for (QuotaProxy p : proxies) {
      p.report();
    }
    return passed;
  }

  @Test
  void theLightProxyKeepsWhatItNeedsAndTheHeavyOneGetsTheRest() throws Exception {
    QuotaFixture f = start(Map.of(
        "sluice.ratelimit-service.quota.buckets.api.match", "name=api",
        "sluice.ratelimit-service.quota.buckets.api.rate", "100/1s"));
    QuotaProxy light = f.proxy();
    QuotaProxy heavy = f.proxy();
    QuotaProxy[] both = {light, heavy};
    int[] demands = {10, 300};
    for (int round = 0; round < 3; round++) {
      second(f, both, demands);
    }
    assertThat(perSecond(light.enforcing(API))).isEqualTo(10);
    assertThat(perSecond(heavy.enforcing(API))).isEqualTo(90);
    int[] passed = second(f, both, demands);
    assertThat(passed[0]).as("the light proxy is never refused").isEqualTo(10);
    assertThat(passed[0] + passed[1]).as("together, the quota").isEqualTo(100);
  }

  @Test
  void sharesFollowTheDemandsAsTheyChange() throws Exception {
    QuotaFixture f = start(Map.of("sluice.ratelimit-service.quota.default", "100/1s"));
    QuotaProxy a = f.proxy();
    QuotaProxy b = f.proxy();
    QuotaProxy[] both = {a, b};
    second(f, both, new int[] {30, 30});
    second(f, both, new int[] {30, 30});
    // below the quota together: each gets its demand and half of what is left
    assertThat(perSecond(a.enforcing(API))).isEqualTo(50);
    assertThat(perSecond(b.enforcing(API))).isEqualTo(50);
    second(f, both, new int[] {200, 20});
    second(f, both, new int[] {200, 20});
    assertThat(perSecond(a.enforcing(API))).isEqualTo(80);
    assertThat(perSecond(b.enforcing(API))).isEqualTo(20);
  }

  @Test
  void aProxyThatLeavesGivesItsShareBack() throws Exception {
    QuotaFixture f = start(Map.of("sluice.ratelimit-service.quota.default", "100/1s"));
    QuotaProxy stays = f.proxy();
    QuotaProxy leaves = f.proxy();
    QuotaProxy[] both = {stays, leaves};
    second(f, both, new int[] {200, 200});
    second(f, both, new int[] {200, 200});
    assertThat(perSecond(stays.enforcing(API))).isEqualTo(50);
    assertThat(perSecond(leaves.enforcing(API))).isEqualTo(50);
    leaves.leave();
    assertThat(leaves.next()).isEqualTo("completed");
    await().until(() -> f.server.quotas().openStreams() == 1);
    second(f, new QuotaProxy[] {stays}, new int[] {200});
    assertThat(perSecond(stays.enforcing(API))).isEqualTo(100);
    assertThat(second(f, new QuotaProxy[] {stays}, new int[] {200})[0]).isEqualTo(100);
  }

  @Test
  void aQuotaOfZeroDeniesAllAndAnUnlimitedOneAllowsAll() throws Exception {
    QuotaFixture f = start(Map.of(
        "sluice.ratelimit-service.quota.default", "5/1m",
        "sluice.ratelimit-service.quota.buckets.blocked.match", "name=blocked",
        "sluice.ratelimit-service.quota.buckets.blocked.rate", "0/1s",
        "sluice.ratelimit-service.quota.buckets.free.match", "name=free",
        "sluice.ratelimit-service.quota.buckets.free.rate", "unlimited"));
    QuotaProxy p = f.proxy();
    BucketId blocked = bucket("name", "blocked");
    BucketId free = bucket("name", "free");
    BucketId other = bucket("name", "other", "env", "prod");
    p.request(blocked);
    p.request(free);
    p.request(other);
    f.time.advance(Duration.ofSeconds(1));
    p.report();
    assertThat(p.enforcing(blocked)).isEqualTo(QuotaFixture.DENY_ALL);
    assertThat(p.enforcing(free)).isEqualTo(QuotaFixture.ALLOW_ALL);
    assertThat(p.enforcing(other).getRequestsPerTimeUnit().getRequestsPerTimeUnit())
        .isEqualTo(5);
    assertThat(p.enforcing(other).getRequestsPerTimeUnit().getTimeUnit())
        .isEqualTo(RateLimitUnit.MINUTE);
    assertThat(p.requests(blocked, 10)).isZero();
    assertThat(p.requests(free, 1000)).isEqualTo(1000);
    assertThat(p.requests(other, 10)).isEqualTo(5);
  }

  @Test
  void theMostSpecificRuleWins() throws Exception {
    QuotaFixture f = start(Map.of(
        "sluice.ratelimit-service.quota.buckets.any-api.match", "name=api",
        "sluice.ratelimit-service.quota.buckets.any-api.rate", "100/1s",
        "sluice.ratelimit-service.quota.buckets.prod-api.match", "name=api,env=prod",
        "sluice.ratelimit-service.quota.buckets.prod-api.rate", "7/1s"));
    QuotaProxy p = f.proxy();
    BucketId prod = bucket("name", "api", "env", "prod");
    BucketId staging = bucket("name", "api", "env", "staging");
    BucketId unruled = bucket("name", "web");
    p.request(prod);
    p.request(staging);
    p.request(unruled);
    f.time.advance(Duration.ofSeconds(1));
    p.report();
    assertThat(perSecond(p.enforcing(prod))).isEqualTo(7);
    assertThat(perSecond(p.enforcing(staging))).isEqualTo(100);
    assertThat(p.enforcing(unruled)).as("the default: unlimited").isEqualTo(QuotaFixture.ALLOW_ALL);
  }

  @Test
  void aPeriodThatIsNoTimeUnitIsAssignedAsATokenBucket() throws Exception {
    QuotaFixture f = start(Map.of(
        "sluice.ratelimit-service.quota.default", "50/10s",
        "sluice.ratelimit-service.quota.assignment-ttl", "1m"));
    QuotaProxy p = f.proxy();
    p.request(API);
    f.time.advance(Duration.ofSeconds(1));
    p.report();
    var bucket = p.enforcing(API).getTokenBucket();
    assertThat(bucket.getMaxTokens()).isEqualTo(50);
    assertThat(bucket.getTokensPerFill().getValue()).isEqualTo(50);
    assertThat(Protos.duration(bucket.getFillInterval())).isEqualTo(Duration.ofSeconds(10));
    assertThat(p.requests(API, 80)).isEqualTo(50);
    f.time.advance(Duration.ofSeconds(10));
    assertThat(p.requests(API, 80)).isEqualTo(50);
  }

  @Test
  void anAssignmentLivesThreeReportingIntervalsThenTheProxyFallsBack() throws Exception {
    QuotaFixture f = start(Map.of("sluice.ratelimit-service.quota.default", "10/1s"));
    QuotaProxy p = f.proxy(QuotaFixture.DENY_ALL);
    assertThat(p.request(API)).as("no assignment yet: the proxy's own fallback").isFalse();
    f.time.advance(Duration.ofSeconds(2));
    RateLimitQuotaResponse answer = p.report();
    assertThat(Protos.duration(
            answer.getBucketAction(0).getQuotaAssignmentAction().getAssignmentTimeToLive()))
        .isEqualTo(Duration.ofSeconds(6));
    f.server.close(); // the service vanishes: no more assignments
    assertThat(p.requests(API, 20)).isEqualTo(10);
    f.time.advance(Duration.ofSeconds(5));
    assertThat(p.requests(API, 20)).isEqualTo(10);
    f.time.advance(Duration.ofSeconds(1));
    assertThat(p.enforcing(API)).isEqualTo(QuotaFixture.DENY_ALL);
    assertThat(p.requests(API, 20)).isZero();
  }

  @Test
  void aConfiguredTtlReplacesTheReportingIntervals() throws Exception {
    QuotaFixture f = start(Map.of(
        "sluice.ratelimit-service.quota.default", "10/1s",
        "sluice.ratelimit-service.quota.assignment-ttl", "30s"));
    QuotaProxy p = f.proxy();
    p.request(API);
    f.time.advance(Duration.ofSeconds(1));
    RateLimitQuotaResponse answer = p.report();
    assertThat(Protos.duration(
            answer.getBucketAction(0).getQuotaAssignmentAction().getAssignmentTimeToLive()))
        .isEqualTo(Duration.ofSeconds(30));
  }

  @Test
  void aBucketTheProxyStopsReportingIsAbandonedAndItsShareGoesBack() throws Exception {
    QuotaFixture f = start(Map.of("sluice.ratelimit-service.quota.default", "100/1s"));
    QuotaProxy p = f.proxy();
    QuotaProxy other = f.proxy();
    BucketId web = bucket("name", "web");
    p.requests(API, 200);
    p.request(web);
    other.requests(API, 200);
    f.time.advance(Duration.ofSeconds(1));
    p.report();
    other.report();
    assertThat(perSecond(other.enforcing(API))).isEqualTo(50);
    // p's proxy forgets the API bucket (as Envoy does after its own retention ends) and reports
    // only web from now on
    p.forget(API);
    for (int s = 0; s < 4; s++) {
      p.request(web);
      other.requests(API, 200);
      f.time.advance(Duration.ofSeconds(1));
      RateLimitQuotaResponse answer = p.report();
      other.report();
      if (s == 3) {
        assertThat(answer.getBucketActionList()).anySatisfy(a -> {
          assertThat(a.getBucketId()).isEqualTo(API);
          assertThat(a.hasAbandonAction()).isTrue();
        });
      }
    }
    other.requests(API, 200);
    f.time.advance(Duration.ofSeconds(1));
    other.report();
    assertThat(perSecond(other.enforcing(API))).isEqualTo(100);
  }

  @Test
  void aReportWithoutADomainEndsTheStreamWithInvalidArgument() throws Exception {
    QuotaFixture f = start(Map.of());
    QuotaProxy p = new QuotaProxy(f.server.port(), f.time, "", QuotaFixture.ALLOW_ALL);
    try {
      p.request(API);
      p.send();
      Object answer = p.next();
      assertThat(answer).isInstanceOf(StatusRuntimeException.class);
      assertThat(((StatusRuntimeException) answer).getStatus().getCode())
          .isEqualTo(Status.Code.INVALID_ARGUMENT);
    } finally {
      p.close();
    }
  }

  @Test
  void healthIsServingForTheQuotaService() throws Exception {
    QuotaFixture f = start(Map.of());
    ManagedChannel channel = Grpc.newChannelBuilderForAddress(
            "127.0.0.1", f.server.port(), InsecureChannelCredentials.create())
        .build();
    try {
      HealthCheckRequest quota = HealthCheckRequest.newBuilder()
          .setService(RateLimitQuotaServiceGrpc.SERVICE_NAME)
          .build();
      assertThat(HealthGrpc.newBlockingStub(channel).check(quota).getStatus())
          .isEqualTo(ServingStatus.SERVING);
    } finally {
      channel.shutdownNow();
    }
  }
}
