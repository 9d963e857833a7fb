package dev.sluice.javalin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.concurrency.Permit;
import dev.sluice.config.LimiterConfig;
import dev.sluice.config.LimiterKeys;
import dev.sluice.config.LimiterKeys.QueueKind;
import dev.sluice.config.SluiceConfigException;
import dev.sluice.request.Scope;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The plugin's limiters built from their settings, without a server: the request path's lookup,
 * what a reload applies at once, and what it leaves for a restart (with a warning each).
 */
class LimitersTest {

  @RegisterExtension
  final LogCapture log = new LogCapture(LimitersTest.class);

  private final VirtualTime time = new VirtualTime();
  private final Warnings warnings = Warnings.to(log.logger());
  private Limiters limiters;

  @AfterEach
  void stop() {
    if (limiters != null) {
      limiters.shutdown();
    }
  }

  private List<String> warnings() {
    return log.events().stream().map(ILoggingEvent::getFormattedMessage).toList();
  }

  private static LimiterConfig.Builder limiter(String name, String path, int max) {
    LimiterConfig.Builder b = LimiterConfig.custom(name).set(LimiterKeys.MAX_CONCURRENCY, max);
    return path == null ? b : b.set(LimiterKeys.PATH, path);
  }

  private static Map<String, LimiterConfig> configs(LimiterConfig.Builder... builders) {
    Map<String, LimiterConfig> out = new LinkedHashMap<>();
    for (LimiterConfig.Builder b : builders) {
      LimiterConfig c = b.build();
      out.put(c.name(), c);
    }
    return out;
  }

  private Limiters build(Map<String, LimiterConfig> configs) {
    limiters = Limiters.build(
        configs,
        time,
        time,
        Runnable::run,
        new ConcurrencyListener() {},
        Optional.empty(),
        warnings);
    return limiters;
  }

  @Test
  void aRequestPathFindsTheFirstLimiterWhosePathMatchesIt() {
    build(configs(
        limiter("work", "/api/work/**", 4),
        limiter("all-api", "/api/**", 8),
        limiter("wrapped", null, 2)));

    assertThat(limiters.forPath("/api/work/7").name()).isEqualTo("work");
    assertThat(limiters.forPath("/api/other").name()).isEqualTo("all-api");
    assertThat(limiters.forPath("/health")).isNull();
    assertThat(limiters.byName("wrapped")).hasValueSatisfying(e -> {
      assertThat(e.pattern()).isEmpty();
      assertThat(e.guards("/api/work/7")).isFalse();
    });
    assertThat(limiters.byName("nope")).isEmpty();
    assertThat(limiters.all())
        .extracting(LimiterEntry::name)
        .containsExactly("work", "all-api", "wrapped");
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aGlobalLimiterWithoutAStoreFailsNamingItsScopeKey() {
    assertThatThrownBy(() ->
            build(configs(limiter("work", "/api/work", 4).set(LimiterKeys.SCOPE, Scope.GLOBAL))))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope")
        .hasMessageContaining("global scope needs a shared store: set sluice.redis.uri");
  }

  @Test
  void aFairQueuesKeyOnAFifoQueueIsReportedAsIgnored() {
    build(configs(limiter("work", "/api/work", 4)
        .set(LimiterKeys.QUEUE_KEY, "header:X-Tenant")
        .set(LimiterKeys.MAX_QUEUE_PER_KEY, 2)));

    assertThat(warnings())
        .singleElement()
        .isEqualTo("Sluice limiter 'work' has a FIFO queue: [sluice.limiters.work.queue-key,"
            + " sluice.limiters.work.max-queue-per-key] only apply with queue=fair; ignored");
  }

  @Test
  void aReloadAppliesTheLimitAtOnceAndLeavesPathAndNewLimitersForARestart() {
    build(configs(limiter("work", "/api/work", 4), limiter("other", "/api/other", 2)));
    LimiterEntry work = limiters.byName("work").orElseThrow();

    limiters.apply(
        configs(
            limiter("work", "/api/job", 6).set(LimiterKeys.DEADLINE_HEADER, "X-Budget"),
            limiter("other", "/api/other", 2),
            limiter("fresh", "/api/fresh", 1)),
        warnings);

    assertThat(work.limiter().snapshot().limit()).isEqualTo(6);
    assertThat(work.config().maxConcurrency()).isEqualTo(6);
    // the path waits for a restart: the running limiter keeps guarding its old one
    assertThat(work.config().path()).hasValue("/api/work");
    assertThat(limiters.forPath("/api/work").name()).isEqualTo("work");
    assertThat(work.deadlineHeader()).isEqualTo("X-Budget");
    assertThat(limiters.byName("fresh")).isEmpty();
    assertThat(warnings())
        .containsExactlyInAnyOrder(
            "Sluice limiter 'work': path changed (/api/work -> /api/job); takes effect after a"
                + " restart",
            "Sluice limiter 'fresh' is new in the reloaded properties; it takes effect after a"
                + " restart");
    assertThat(limiters.byName("other").orElseThrow().config().maxConcurrency()).isEqualTo(2);
  }

  @Test
  void aReloadThatChangesTheQueueDisciplineChangesHowRequestsQueue() {
    build(configs(limiter("work", "/api/work", 4)));
    LimiterEntry work = limiters.byName("work").orElseThrow();
    assertThat(work.callers().needed()).isFalse();

    limiters.apply(
        configs(limiter("work", "/api/work", 4)
            .set(LimiterKeys.QUEUE, QueueKind.FAIR)
            .set(LimiterKeys.QUEUE_KEY, "header:X-Tenant")),
        warnings);

    assertThat(work.callers().needed()).isTrue();
    assertThat(work.callers().settings().fair()).isTrue();
    assertThat(work.config().queue().fair()).isTrue();
    assertThat(warnings()).isEmpty();
  }

  @Test
  void aReloadThatChangesTheCostTakesTheNewCostAndCeiling() {
    build(configs(limiter("work", "/api/work", 4)));
    LimiterEntry work = limiters.byName("work").orElseThrow();
    assertThat(work.cost().one()).isTrue();

    limiters.apply(configs(limiter("work", "/api/work", 4).set(LimiterKeys.COST, "2")), warnings);
    assertThat(work.cost().constant()).isEqualTo(2);
    assertThat(work.costCeiling().ceiling()).isEqualTo(4);

    limiters.apply(configs(limiter("work", "/api/work", 8).set(LimiterKeys.COST, "2")), warnings);
    assertThat(work.costCeiling().ceiling()).isEqualTo(8);

    limiters.apply(
        configs(limiter("work", "/api/work", 8)
            .set(LimiterKeys.COST, "header:X-Cost")
            .set(LimiterKeys.COST_SCALE, 10)),
        warnings);
    assertThat(work.cost().declares()).isTrue();
    assertThat(work.cost().scale()).isEqualTo(10);
    assertThat(work.costs().scale()).isEqualTo(10);
  }

  @Test
  void drainingWaitsForEveryLimitersPermits() throws InterruptedException {
    build(configs(limiter("work", "/api/work", 4), limiter("other", "/api/other", 2)));
    assertThat(limiters.awaitDrained(Duration.ZERO)).isTrue();
    Permit held = limiters.byName("other").orElseThrow().limiter().acquire().join();
    assertThat(limiters.awaitDrained(Duration.ZERO)).isFalse();
    held.release();
    assertThat(limiters.awaitDrained(Duration.ZERO)).isTrue();
  }
}
