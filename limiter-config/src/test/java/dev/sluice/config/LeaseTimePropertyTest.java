package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.ConcurrencyLimiter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code sluice.limiters.<name>.lease-time}: a global limiter's lease time from the properties,
 * checked against the renewal's minimum, handed to the shared store with every lease asked for, and
 * changed by a reload for the leases taken after it.
 */
class LeaseTimePropertyTest {

  @TempDir
  Path dir;

  @Test
  void theKeyParsesDurationsAndDefaultsToTheCoresLeaseTime() {
    String key = "sluice.limiters.work.lease-time";
    assertThat(LimiterKeys.LEASE_TIME.parse(key, "10s", "file a"))
        .isEqualTo(Duration.ofSeconds(10));
    assertThat(LimiterKeys.LEASE_TIME.parse(key, "2s", "file a")).isEqualTo(Duration.ofSeconds(2));
    assertThat(LimiterKeys.LEASE_TIME.parse(key, "PT1M", "file a"))
        .isEqualTo(Duration.ofMinutes(1));
    assertThat(LimiterKeys.byName("lease-time")).isSameAs(LimiterKeys.LEASE_TIME);
    assertThat(LimiterConfig.custom("work").build().spec().leaseTime())
        .isEqualTo(ConcurrencyLimiter.DEFAULT_LEASE_TIME);
  }

  @Test
  void aLeaseTimeUnderTwoSecondsNamesKeyValueSourceAndWhy() {
    String key = "sluice.limiters.work.lease-time";
    assertThatThrownBy(() -> LimiterKeys.LEASE_TIME.parse(key, "1500ms", "environment variable X"))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageStartingWith(key + "='1500ms' (from environment variable X)")
        .hasMessageContaining("must be at least 2s")
        .hasMessageContaining("renewed every third of the lease time");
    assertThatThrownBy(() -> LimiterKeys.LEASE_TIME.parse(key, "0s", "file a"))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(key)
        .hasMessageContaining("'0s'")
        .hasMessageContaining("must be > 0");
    assertThatThrownBy(() -> LimiterKeys.LEASE_TIME.parse(key, "soon", "file a"))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(key)
        .hasMessageContaining("'soon'")
        .hasMessageContaining("from file a");
  }
}
