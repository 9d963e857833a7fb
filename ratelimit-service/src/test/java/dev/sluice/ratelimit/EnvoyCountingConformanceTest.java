package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.RlsFixture.descriptor;
import static dev.sluice.ratelimit.RlsFixture.request;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UInt64Value;
import dev.sluice.redis.RedisServer;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.StoreSettings;
import dev.sluice.time.NanoClock;
import dev.sluice.time.VirtualTime;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitRequest;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.Code;
import io.envoyproxy.envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * envoy/ratelimit's counting, request for request: every hit is counted in its window ({@code
 * INCRBY} whatever the answer), a descriptor is over once the window's count after its hits is above
 * {@code requests_per_unit}, and {@code limit_remaining} is the limit less that count. The same
 * sequences run on the local counters (one replica) and on two replicas sharing one real
 * redis-server, the requests alternating between them.
 */
@Tag("integration")
class EnvoyCountingConformanceTest {

  private static final long LIMIT = 5;
  private static final String YAML = """
      domain: api
      descriptors:
        - key: user
          rate_limit:
            unit: minute
            requests_per_unit: 5
      """;

  private RedisServer redis;
  private final List<RlsFixture> replicas = new ArrayList<>();

  private void start(String store) throws Exception {
    // both replicas read one clock, as two hosts whose clocks agree (envoy/ratelimit's premise)
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT.plusSeconds(10)));
    DescriptorConfig config = DescriptorConfig.parse("api.yaml", YAML);
    if (store.equals("local")) {
      replicas.add(new RlsFixture(config, time, new LocalCounters(time)));
      return;
    }
    redis = RedisServer.start();
    for (int i = 0; i < 2; i++) {
      Counters counters = RateLimitServiceMain.counters(
          Optional.of(new StoreSettings(
              redis.uri(), Duration.ofSeconds(2), 2, FailurePolicy.DENY, NanoClock.system())),
          time);
      replicas.add(new RlsFixture(config, time, counters));
    }
  }

  @AfterEach
  void stop() throws Exception {
    replicas.forEach(RlsFixture::close);
    if (redis != null) {
      redis.close();
    }
  }

  /** The {@code n}th request goes to the next replica in turn. */
  private DescriptorStatus ask(int n, RateLimitRequest request) {
    RateLimitResponse response = replicas.get(n % replicas.size()).ask(request);
    DescriptorStatus status = response.getStatuses(0);
    assertThat(response.getOverallCode()).isEqualTo(status.getCode());
    assertThat(status.getCurrentLimit().getRequestsPerUnit()).isEqualTo(LIMIT);
    assertThat(status.getCurrentLimit().getUnit())
        .isEqualTo(RateLimitResponse.RateLimit.Unit.MINUTE);
    assertThat(status.getDurationUntilReset().getSeconds()).isEqualTo(50);
    return status;
  }

  private static RateLimitRequest hits(String user, int hitsAddend) {
    return request("api", descriptor("user", user)).toBuilder()
        .setHitsAddend(hitsAddend)
        .build();
  }

  /** A descriptor's own {@code hits_addend} 0: checks the count without counting. */
  private static RateLimitRequest check(String user) {
    return request(
        "api",
        descriptor("user", user).toBuilder().setHitsAddend(UInt64Value.of(0)).build());
  }

  private static void expect(DescriptorStatus status, Code code, long remaining, String step) {
    assertThat(status.getCode()).as(step).isEqualTo(code);
    assertThat(status.getLimitRemaining()).as(step).isEqualTo(remaining);
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "redis"})
  void aRefusedRequestUsesUpTheWindowAsEnvoyRatelimitCountsIt(String store) throws Exception {
    start(store);

    expect(ask(0, hits("alice", 3)), Code.OK, 2, "3 of 5");
    expect(ask(1, hits("alice", 3)), Code.OVER_LIMIT, 0, "6 of 5: over, and counted");
    expect(ask(2, hits("alice", 1)), Code.OVER_LIMIT, 0, "7 of 5: one hit finds no room left");
    expect(ask(3, check("alice")), Code.OVER_LIMIT, 0, "a check at 7 of 5");
    expect(ask(4, hits("bob", 5)), Code.OK, 0, "another counter: 5 of 5");
    expect(ask(5, check("bob")), Code.OK, 0, "a check at exactly the limit is within it");
    expect(ask(6, hits("bob", 1)), Code.OVER_LIMIT, 0, "6 of 5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "redis"})
  void aCheckCountsNothing(String store) throws Exception {
    start(store);

    expect(ask(0, hits("carol", 2)), Code.OK, 3, "2 of 5");
    expect(ask(1, check("carol")), Code.OK, 3, "a check at 2 of 5");
    expect(ask(2, check("carol")), Code.OK, 3, "and again");
    expect(ask(3, hits("carol", 3)), Code.OK, 0, "5 of 5");
  }

  @ParameterizedTest
  @ValueSource(strings = {"local", "redis"})
  void randomSequencesAnswerAsEnvoyRatelimitsCount(String store) throws Exception {
    start(store);
    long seed = new Random().nextLong();
    Random random = new Random(seed);
    for (int round = 0; round < 4; round++) {
      String user = "u" + round;
      long count = 0; // envoy/ratelimit's counter for the window
      for (int n = 0; n < 12; n++) {
        boolean isCheck = random.nextInt(5) == 0;
        int addend = random.nextInt(4); // 0 is 1, as in envoy/ratelimit
        DescriptorStatus status = ask(n, isCheck ? check(user) : hits(user, addend));
        count += isCheck ? 0 : Math.max(1, addend);
        boolean over = count > LIMIT;
        expect(
            status,
            over ? Code.OVER_LIMIT : Code.OK,
            over ? 0 : LIMIT - count,
            "seed " + seed + ", " + user + ", request " + n + ", count " + count);
      }
    }
  }
}
