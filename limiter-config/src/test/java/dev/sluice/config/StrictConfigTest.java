package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.sluice.concurrency.ConcurrencyLimiter;
import dev.sluice.concurrency.limit.LimitSpec;
import dev.sluice.request.Scope;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Strict configuration: typos fail start-up loudly, with where they came from and a suggestion. */
class StrictConfigTest {

  @TempDir
  Path dir;

  private static SluiceProperties system(Map<String, String> values) {
    return SluiceProperties.builder().env(Map.of()).system(values).build();
  }

  private static SluiceSettings resolveChecked(SluiceProperties p) {
    SluiceSettings s = SluiceSettings.resolve(p, Map.of());
    UnknownKeys.check(p, s.limiters().keySet(), s.strict(), (kind, message) -> {});
    return s;
  }

  @Test
  void aConfigurationErrorPrintsAsOneLineAndOneSetInCodeKeepsItsTrace() {
    SluiceProperties p = system(
        Map.of("sluice.limiters.work.path", "/api/work", "sluice.limiters.work.max-queue", "lots"));
    Throwable fromProperties = catchThrowable(() -> resolveChecked(p));
    java.io.StringWriter printed = new java.io.StringWriter();
    fromProperties.printStackTrace(new java.io.PrintWriter(printed));

    assertThat(printed.toString().lines())
        .containsExactly("dev.sluice.config.SluiceConfigException:"
            + " sluice.limiters.work.max-queue='lots' (from system property"
            + " -Dsluice.limiters.work.max-queue): not a whole number; allowed: >= 0");
    // a value the application's code set: the trace points to that line
    assertThat(new SluiceConfigException("k", "v", LimiterConfig.CODE, "bad").getStackTrace())
        .isNotEmpty();
  }

  @Test
  void aLimiterNameWithADotIsAConfigErrorNamingTheKeyThatMadeIt() {
    // found by PropertiesFuzzTest: the builder's bare IllegalArgumentException escaped
    SluiceProperties p = system(Map.of("sluice.limiters.work.queue-.max-queue", "5"));

    assertThatThrownBy(() -> resolveChecked(p))
        .isExactlyInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.limiters.work.queue-.max-queue='5' (from system property"
            + " -Dsluice.limiters.work.queue-.max-queue): limiter name must not be blank nor"
            + " contain '.' but was 'work.queue-'");
  }

  @Test
  void aMisspeltLimiterKeyFromASystemPropertyNamesKeySourceAndTheNearestKey() {
    SluiceProperties p = system(Map.of(
        "sluice.limiters.work.path", "/api/work", "sluice.limiters.work.max-concurency", "1"));

    assertThatThrownBy(() -> resolveChecked(p))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.max-concurency='1'")
        .hasMessageContaining("from system property -Dsluice.limiters.work.max-concurency")
        .hasMessageContaining("did you mean 'sluice.limiters.work.max-concurrency'?");
  }

  @Test
  void aMisspeltEnvironmentVariableNamesTheVariable() {
    SluiceProperties p = SluiceProperties.builder()
        .env(Map.of("SLUICE_LIMITERS_WORK_MAX_CONCURENCY", "1", "SLUICE_ENABLD", "true"))
        .system(Map.of("sluice.limiters.work.path", "/api/work"))
        .build();

    assertThatThrownBy(() -> resolveChecked(p))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("environment variable SLUICE_LIMITERS_WORK_MAX_CONCURENCY")
        .hasMessageContaining("did you mean 'sluice.limiters.work.max-concurrency'?")
        .hasMessageContaining("environment variable SLUICE_ENABLD")
        .hasMessageContaining("did you mean 'sluice.enabled'?")
        .hasMessageContaining("1 more unknown");
  }

  @Test
  void aBadValueSaysWhichFileItCameFrom() throws IOException {
    Path f = dir.resolve("app.properties");
    Files.writeString(
        f, "sluice.limiters.work.path=/api/work\nsluice.limiters.work.max-queue=-1\n");
    SluiceProperties p =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();

    assertThatThrownBy(() -> SluiceSettings.resolve(p, Map.of()))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.limiters.work.max-queue='-1' (from file " + f + "): must be >= 0");
  }

  @Test
  void codeAndPropertiesShareOneCheck() {
    assertThatThrownBy(() -> LimiterConfig.custom("work").maxQueue(-1))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.limiters.work.max-queue='-1' (from code): must be >= 0");
    assertThatThrownBy(() -> LimiterConfig.custom("work").path("api/work"))
        .hasMessageContaining("sluice.limiters.work.path='api/work' (from code)");
    assertThatThrownBy(() -> LimiterConfig.custom("work").queueTimeout(Duration.ZERO))
        .hasMessageContaining("must be > 0");
  }

  @Test
  void propertiesWinOverCodeOnTheSameBuilder() {
    SluiceProperties p = system(Map.of("sluice.limiters.work.max-queue", "7"));
    SluiceSettings s = SluiceSettings.resolve(
        p,
        Map.of(
            "work", LimiterConfig.custom("work").path("/api/work").maxQueue(2).maxConcurrency(3)));

    LimiterConfig work = s.limiters().get("work");
    assertThat(work.maxQueue()).isEqualTo(7);
    assertThat(work.maxConcurrency()).isEqualTo(3);
    assertThat(work.path()).hasValue("/api/work");
    assertThat(work.source(LimiterKeys.MAX_QUEUE))
        .isEqualTo("system property -Dsluice.limiters.work.max-queue");
    assertThat(work.source(LimiterKeys.MAX_CONCURRENCY)).isEqualTo("code");
  }

  @Test
  void defaultsAreTheCoresDefaults() {
    LimiterConfig d = LimiterConfig.ofDefaults("x");
    assertThat(d.maxConcurrency()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_CONCURRENCY);
    assertThat(d.maxQueue()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_QUEUE);
    assertThat(d.queueTimeout()).isEqualTo(ConcurrencyLimiter.DEFAULT_QUEUE_TIMEOUT);
    assertThat(d.scope()).isEqualTo(Scope.LOCAL);
    assertThat(d.path()).isEmpty();
    LimiterConfig copy = LimiterConfig.from(d).maxQueue(1).build();
    assertThat(copy.maxQueue()).isEqualTo(1);
    assertThat(d.maxQueue()).isEqualTo(ConcurrencyLimiter.DEFAULT_MAX_QUEUE);
  }

  @Test
  void reservedLimiterKeysAreAcceptedAndParsed() {
    SluiceProperties p = system(Map.of(
        "sluice.limiters.work.path", "/api/work",
        "sluice.limiters.work.limit", "cpu",
        "sluice.limiters.work.target-cpu", "70%",
        "sluice.limiters.work.cpu-source", "process",
        "sluice.limiters.work.min-concurrency", "2",
        "sluice.limiters.work.reject-early", "true",
        "sluice.limiters.work.queue", "fair",
        "sluice.limiters.work.queue-key", "header:X-Host-Id",
        "sluice.limiters.work.max-queue-per-key", "3",
        "sluice.limiters.work.priority-header", "X-Priority"));

    LimiterConfig work = resolveChecked(p).limiters().get("work");
    assertThat(work.spec().limit())
        .isEqualTo(LimitSpec.cpu(0.7, CpuSignals.JVM.process(), 2))
        .as("the process's CPU, not the machine's")
        .isNotEqualTo(LimitSpec.cpu(0.7, CpuSignals.JVM.machine(), 2));
    assertThat(work.spec().rejectEarly()).isTrue();
    assertThat(work.queue().fair()).isTrue();
    assertThat(work.queue().key().orElseThrow().id()).isEqualTo("header:x-host-id");
    assertThat(work.queueKey()).isEqualTo("header:X-Host-Id");
    assertThat(work.queue().maxQueuePerKey()).isEqualTo(3);
    assertThat(work.queue().priorityHeader()).hasValue("X-Priority");
  }

  @Test
  void reservedKeysAreChecked() {
    Map<String, String> bad = Map.of(
        "sluice.limiters.w.limit", "auto",
        "sluice.limiters.w.target-cpu", "1.5",
        "sluice.limiters.w.cpu-source", "gpu",
        "sluice.limiters.w.queue", "lifo",
        "sluice.limiters.w.queue-key", "cookie",
        "sluice.limiters.w.max-queue-per-key", "-2",
        "sluice.forwarded-header", "x-real-ip",
        "sluice.ipv6-prefix", "129",
        "sluice.redis.connect-timeout", "0s",
        "sluice.dashboard.path", "dash");
    bad.forEach((key, value) -> assertThatThrownBy(
            () -> SluiceSettings.resolve(system(Map.of(key, value)), Map.of()))
        .as(key)
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(key + "='" + value + "' (from system property -D" + key + ")"));
  }

  @Test
  void minConcurrencyAboveMaxIsAnError() {
    assertThatThrownBy(() -> SluiceSettings.resolve(
            system(Map.of(
                "sluice.limiters.w.max-concurrency",
                "2",
                "sluice.limiters.w.min-concurrency",
                "3")),
            Map.of()))
        .hasMessageContaining("sluice.limiters.w.min-concurrency='3'")
        .hasMessageContaining("must be <= max-concurrency (2");
  }

  @Test
  void aBlankOptionalKeyMeansUnset() {
    LimiterConfig w = SluiceSettings.resolve(
            system(Map.of("sluice.limiters.w.path", "/w", "sluice.limiters.w.priority-header", "")),
            Map.of())
        .limiters()
        .get("w");
    assertThat(w.queue().priorityHeader()).isEmpty();
  }

  @Test
  void aDiscardBoundIsASizeWithAUnitOfBytesKbMbOrGb() {
    assertThat(SluiceSettings.resolve(system(Map.of()), Map.of()).get(SluiceKeys.DISCARD_BODY))
        .isEqualTo(8L * 1024 * 1024);
    Map<String, Long> sizes =
        Map.of("0", 0L, "65536", 65536L, "512KB", 512L * 1024, "8 mb", 8L << 20, "1GB", 1L << 30);
    sizes.forEach((text, bytes) -> assertThat(
            SluiceSettings.resolve(system(Map.of("sluice.rejections.discard-body", text)), Map.of())
                .get(SluiceKeys.DISCARD_BODY))
        .as(text)
        .isEqualTo(bytes));
  }

  @Test
  void aBadDiscardBoundNamesKeyValueAndFile() throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, "sluice.rejections.discard-body=8MiB\n");
    SluiceProperties p =
        SluiceProperties.builder().file(f).env(Map.of()).system(Map.of()).build();

    assertThatThrownBy(() -> SluiceSettings.resolve(p, Map.of()))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessage("sluice.rejections.discard-body='8MiB' (from file " + f + "): unknown unit;"
            + " allowed: a size in bytes, e.g. 0, 65536, 512KB, 8MB, 1GB");
  }

  @Test
  void aNegativeOrFractionalDiscardBoundIsRefused() {
    assertThatThrownBy(() -> SluiceSettings.resolve(
            system(Map.of("sluice.rejections.discard-body", "-1MB")), Map.of()))
        .hasMessageContaining("sluice.rejections.discard-body='-1MB'")
        .hasMessageContaining("must not be negative");
    assertThatThrownBy(() -> SluiceSettings.resolve(
            system(Map.of("sluice.rejections.discard-body", "1.5MB")), Map.of()))
        .hasMessageContaining("not a size");
    assertThatThrownBy(() -> SluiceSettings.resolve(
            system(Map.of("sluice.rejections.discard-time", "0s")), Map.of()))
        .hasMessageContaining("sluice.rejections.discard-time='0s'")
        .hasMessageContaining("must be > 0");
  }

  @Test
  void theReadmeListsEveryKey() throws IOException {
    String readme = Files.readString(Path.of("../javalin-plugin/README.md"));
    SluiceKeys.ALL.forEach(k -> assertThat(readme).as(k.name()).contains("`" + k.name() + "`"));
    LimiterKeys.ALL.forEach(
        k -> assertThat(readme).as(k.name()).contains("`sluice.limiters.<name>." + k.name() + "`"));
  }
}
