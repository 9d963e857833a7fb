package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.limit.CpuSignal;
import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The immutable spec: defaults, validation naming the field, equality, copy. */
class LimiterSpecTest {

  @Test
  void theDefaultsAreTheLimitersDefaults() {
    LimiterSpec d = LimiterSpec.ofDefaults();
    assertThat(d.maxConcurrency()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY);
    assertThat(d.maxQueue()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_QUEUE);
    assertThat(d.queueTimeout()).isEqualTo(ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT);
    assertThat(d.leaseTime()).isEqualTo(ConcurrencyLimiter.DEFAULT_LEASE_TIME);
    assertThat(d.limit()).isEqualTo(LimitSpec.fixed());
    assertThat(d.queue()).isEqualTo(QueueSpec.fifo());
    assertThat(d.rejectEarly()).isFalse();
  }

  @Test
  void badValuesAreRefusedNamingTheFieldAndTheValue() {
    assertThatThrownBy(() -> LimiterSpec.custom().maxConcurrency(0))
        .hasMessage("maxConcurrency must be >= 1 but was 0");
    assertThatThrownBy(() -> LimiterSpec.custom().maxQueue(-1))
        .hasMessage("maxQueue must be >= 0 but was -1");
    assertThatThrownBy(() -> LimiterSpec.custom().queueTimeout(Duration.ZERO))
        .hasMessage("queueTimeout must be > 0 but was PT0S");
    assertThatThrownBy(() -> LimiterSpec.custom().queueTimeout(Duration.ofSeconds(-1)))
        .hasMessage("queueTimeout must be > 0 but was PT-1S");
    assertThatThrownBy(() -> LimiterSpec.custom().leaseTime(Duration.ZERO))
        .hasMessage("leaseTime must be at least 1ms but was PT0S");
    assertThatThrownBy(() -> LimitSpec.cpu(1.5))
        .hasMessage("targetCpu must be > 0 and < 1 but was 1.5");
    assertThatThrownBy(() ->
            LimiterSpec.custom().maxConcurrency(2).limit(LimitSpec.latency(3)).build())
        .hasMessage("minConcurrency must be <= maxConcurrency (2) but was 3");
  }

  @Test
  void equalSettingsMakeEqualSpecsAndFromCopiesEveryField() {
    LimiterSpec a = LimiterSpec.custom()
        .maxConcurrency(3)
        .maxQueue(7)
        .limit(LimitSpec.cpu(0.6, CpuSignal.process(), 2))
        .queue(
            QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(2).build()).withClasses())
        .rejectEarly(true)
        .leaseTime(Duration.ofSeconds(5))
        .build();
    LimiterSpec b = LimiterSpec.custom()
        .maxConcurrency(3)
        .maxQueue(7)
        .limit(LimitSpec.cpu(0.6, CpuSignal.process(), 2))
        .queue(
            QueueSpec.fair(FairQueueConfig.builder().maxQueuePerKey(2).build()).withClasses())
        .rejectEarly(true)
        .leaseTime(Duration.ofSeconds(5))
        .build();

    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(LimiterSpec.from(a).build()).isEqualTo(a);
    assertThat(LimiterSpec.from(a).maxQueue(8).build()).isNotEqualTo(a);
  }

  @Test
  void aFifoQueueIgnoresFairSettingsSoEqualDisciplinesAreEqual() {
    assertThat(new QueueSpec.Standard(
            false, FairQueueConfig.builder().maxQueuePerKey(3).build(), false))
        .isEqualTo(QueueSpec.fifo());
  }

  @Test
  void theStringNamesTheOptionalTargetsOnlyWhenSet() {
    LimiterSpec plain = LimiterSpec.custom()
        .maxConcurrency(4)
        .maxQueue(10)
        .queueTimeout(Duration.ofSeconds(1))
        .build();
    LimiterSpec targeted = LimiterSpec.from(plain)
        .queueDelayTarget(Duration.ofMillis(50))
        .expectedServiceTime(Duration.ofMillis(20))
        .build();

    assertThat(plain.toString())
        .startsWith("LimiterSpec[maxConcurrency=4, maxQueue=10, queueTimeout=PT1S, limit=")
        .contains(", queue=fifo, rejectEarly=false, leaseTime=")
        .doesNotContain("queueDelayTarget")
        .doesNotContain("expectedServiceTime")
        .endsWith("]");
    assertThat(targeted.toString())
        .endsWith(", queueDelayTarget=PT0.05S, expectedServiceTime=PT0.02S]");
    assertThat(LimiterSpec.from(plain)
            .expectedServiceTime(Duration.ofMillis(20))
            .build()
            .toString())
        .doesNotContain("queueDelayTarget")
        .endsWith(", expectedServiceTime=PT0.02S]");
  }
}
