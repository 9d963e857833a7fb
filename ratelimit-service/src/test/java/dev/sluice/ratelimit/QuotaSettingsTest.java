package dev.sluice.ratelimit;

import static dev.sluice.ratelimit.simulated.QuotaProxy.bucket;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.config.SluiceConfigException;
import dev.sluice.ratelimit.simulated.QuotaProxy;
import dev.sluice.time.VirtualTime;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The {@code sluice.ratelimit-service.quota.*} keys: what they say, and how a wrong one fails. */
class QuotaSettingsTest {

  @TempDir
  Path dir;

  private ServiceSettings load(String text) throws Exception {
    Path yaml = Files.writeString(dir.resolve("d.yaml"), "domain: d\n");
    Path file = Files.writeString(
        dir.resolve("sluice.properties"), "sluice.ratelimit-service.config=" + yaml + "\n" + text);
    return ServiceSettings.load(new String[] {"--config", file.toString()}, Map.of(), Map.of());
  }

  private void failsOn(String text, String key, String value) {
    assertThatThrownBy(() -> load(text)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo(key);
      assertThat(e.value()).isEqualTo(value);
      assertThat(e.source()).contains("sluice.properties");
    });
  }

  @Test
  void withoutQuotaKeysEveryBucketIsUnlimited() throws Exception {
    QuotaRules rules = load("").quota();
    assertThat(rules.rateFor(Map.of("name", "anything"))).isEqualTo(QuotaRate.UNLIMITED);
    assertThat(rules.assignmentTtl()).isEmpty();
  }

  @Test
  void rulesDefaultAndTtlAreRead() throws Exception {
    QuotaRules rules = load("""
        sluice.ratelimit-service.quota.default=10/1m
        sluice.ratelimit-service.quota.assignment-ttl=20s
        sluice.ratelimit-service.quota.buckets.checkout.match=name=checkout, env=prod
        sluice.ratelimit-service.quota.buckets.checkout.rate=100/1s
        """).quota();
    assertThat(rules.rateFor(bucket("name", "checkout", "env", "prod", "x", "y").getBucketMap()))
        .isEqualTo(new QuotaRate(100, Duration.ofSeconds(1)));
    assertThat(rules.rateFor(Map.of("name", "checkout")))
        .isEqualTo(new QuotaRate(10, Duration.ofMinutes(1)));
    assertThat(rules.assignmentTtl()).contains(Duration.ofSeconds(20));
  }

  @Test
  void aBadRateNamesKeyValueAndSource() {
    failsOn(
        "sluice.ratelimit-service.quota.default=lots\n",
        "sluice.ratelimit-service.quota.default",
        "lots");
    failsOn("""
        sluice.ratelimit-service.quota.buckets.a.match=name=a
        sluice.ratelimit-service.quota.buckets.a.rate=10/fortnight
        """, "sluice.ratelimit-service.quota.buckets.a.rate", "10/fortnight");
    failsOn(
        "sluice.ratelimit-service.quota.default=-1/1s\n",
        "sluice.ratelimit-service.quota.default",
        "-1/1s");
  }

  @Test
  void aBadMatchNamesKeyValueAndSource() {
    failsOn("""
        sluice.ratelimit-service.quota.buckets.a.match=name
        sluice.ratelimit-service.quota.buckets.a.rate=1/1s
        """, "sluice.ratelimit-service.quota.buckets.a.match", "name");
  }

  @Test
  void aRuleNeedsBothMatchAndRate() {
    assertThatThrownBy(() -> load("sluice.ratelimit-service.quota.buckets.a.match=name=a\n"))
        .isInstanceOfSatisfying(SluiceConfigException.class, e -> {
          assertThat(e.key()).isEqualTo("sluice.ratelimit-service.quota.buckets.a.rate");
          assertThat(e.problem()).contains("required");
        });
  }

  @Test
  void aZeroTtlIsRefused() {
    failsOn(
        "sluice.ratelimit-service.quota.assignment-ttl=0s\n",
        "sluice.ratelimit-service.quota.assignment-ttl",
        "0s");
  }

  @Test
  void anUnknownQuotaKeyNamesTheNearestKnownOne() {
    assertThatThrownBy(() -> load("""
            sluice.ratelimit-service.quota.buckets.a.match=name=a
            sluice.ratelimit-service.quota.buckets.a.rate=1/1s
            sluice.ratelimit-service.quota.buckets.a.rat=1/1s
            """)).isInstanceOfSatisfying(SluiceConfigException.class, e -> {
      assertThat(e.key()).isEqualTo("sluice.ratelimit-service.quota.buckets.a.rat");
      assertThat(e.getMessage()).contains("sluice.ratelimit-service.quota.buckets.a.rate");
    });
  }

  @Test
  void theStartedServiceAssignsTheConfiguredQuota() throws Exception {
    Path yaml = Files.writeString(dir.resolve("d.yaml"), "domain: d\n");
    Path file = Files.writeString(dir.resolve("sluice.properties"), """
        sluice.ratelimit-service.port=0
        sluice.ratelimit-service.config=%s
        sluice.ratelimit-service.quota.default=0/1s
        sluice.ratelimit-service.quota.buckets.api.match=name=api
        sluice.ratelimit-service.quota.buckets.api.rate=25/1s
        """.formatted(yaml));
    VirtualTime time = new VirtualTime(RlsFixture.epochNanos(RlsFixture.MIDNIGHT));
    try (RateLimitServer server = RateLimitServiceMain.start(
            new String[] {"--config", file.toString()}, Map.of(), Map.of(), time);
        QuotaProxy proxy = new QuotaProxy(server.port(), time, "envoy", QuotaFixture.ALLOW_ALL)) {
      proxy.request(bucket("name", "api"));
      proxy.request(bucket("name", "web"));
      time.advance(Duration.ofSeconds(1));
      proxy.report();
      assertThat(proxy
              .enforcing(bucket("name", "api"))
              .getRequestsPerTimeUnit()
              .getRequestsPerTimeUnit())
          .isEqualTo(25);
      assertThat(proxy.enforcing(bucket("name", "web"))).isEqualTo(QuotaFixture.DENY_ALL);
    }
  }
}
