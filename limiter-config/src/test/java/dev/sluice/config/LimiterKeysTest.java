package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.concurrency.LimiterSpec;
import dev.sluice.concurrency.QueueSpec;
import dev.sluice.concurrency.limit.LimitSpec;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Each limiter key carries its setter: properties reach the core's spec through it alone. */
class LimiterKeysTest {

  private static LimiterConfig resolve(Map<String, String> system) {
    SluiceProperties p = SluiceProperties.builder().env(Map.of()).system(system).build();
    return SluiceSettings.resolve(p, Map.of()).limiters().get("w");
  }

  @Test
  void propertiesMakeTheSameSpecAsCode() {
    LimiterConfig w = resolve(Map.of(
        "sluice.limiters.w.max-concurrency", "3",
        "sluice.limiters.w.max-queue", "7",
        "sluice.limiters.w.queue-timeout", "5s",
        "sluice.limiters.w.reject-early", "true",
        "sluice.limiters.w.lease-time", "10s",
        "sluice.limiters.w.queue-delay-target", "200ms",
        "sluice.limiters.w.expected-service-time", "50ms",
        "sluice.limiters.w.limit", "latency",
        "sluice.limiters.w.min-concurrency", "2"));

    assertThat(w.spec())
        .isEqualTo(LimiterSpec.custom()
            .maxConcurrency(3)
            .maxQueue(7)
            .queueTimeout(Duration.ofSeconds(5))
            .rejectEarly(true)
            .leaseTime(Duration.ofSeconds(10))
            .queueDelayTarget(Duration.ofMillis(200))
            .expectedServiceTime(Duration.ofMillis(50))
            .limit(LimitSpec.latency(2))
            .queue(QueueSpec.fifo())
            .build());
  }

  @Test
  void noPropertiesMakeTheCoresDefaultSpec() {
    assertThat(resolve(Map.of("sluice.limiters.w.path", "/w")).spec())
        .isEqualTo(LimiterSpec.ofDefaults());
  }

  @Test
  void aPropertyOverridesCodeKeyByKeyAndAnEmptyOptionalOneTurnsCodesValueOff() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of())
        .system(
            Map.of("sluice.limiters.w.max-queue", "9", "sluice.limiters.w.queue-delay-target", ""))
        .build();
    LimiterConfig.Builder code = LimiterConfig.custom("w")
        .maxConcurrency(4)
        .maxQueue(2)
        .set(LimiterKeys.QUEUE_DELAY_TARGET, Duration.ofMillis(100));

    LimiterConfig w = SluiceSettings.resolve(p, Map.of("w", code)).limiters().get("w");

    assertThat(w.spec().maxConcurrency()).isEqualTo(4);
    assertThat(w.spec().maxQueue()).isEqualTo(9);
    assertThat(w.spec().queueDelayTarget()).isEmpty();
    assertThat(w.source(LimiterKeys.MAX_CONCURRENCY)).isEqualTo("code");
    assertThat(w.source(LimiterKeys.MAX_QUEUE))
        .isEqualTo("system property -Dsluice.limiters.w.max-queue");
  }

  @Test
  void everyKeyHasAUniqueNameAndADocumentationLine() {
    assertThat(LimiterKeys.ALL.stream().map(LimiterKey::name)).doesNotHaveDuplicates();
    LimiterKeys.ALL.forEach(k -> {
      assertThat(k.doc()).as(k.name()).isNotBlank();
      assertThat(LimiterKeys.byName(k.name())).isSameAs(k);
    });
  }

  @Test
  void aValueFromCodeIsCheckedAsTheSameTextInAFileWouldBe() {
    assertThatThrownBy(() -> LimiterConfig.custom("w").maxQueue(-1))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.limiters.w.max-queue='-1' (from code): must be >= 0");
    assertThatThrownBy(() -> resolve(Map.of("sluice.limiters.w.max-queue", "-1")))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.limiters.w.max-queue='-1' (from system property"
            + " -Dsluice.limiters.w.max-queue): must be >= 0");
  }
}
