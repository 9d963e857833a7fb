package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

@Tag("integration")
class SluicePropertiesTest {

  @TempDir
  Path dir;

  private Path file(String text) throws IOException {
    Path f = dir.resolve("sluice.properties");
    Files.writeString(f, text);
    return f;
  }

  @Test
  void aMissingPropertiesFileIsOneLineNamingIt(@TempDir Path dir) {
    Path missing = dir.resolve("nowhere.properties");

    assertThatThrownBy(() -> SluiceProperties.load(missing))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(missing.toString())
        .hasMessageContaining("does not exist")
        .hasMessageNotContaining("\n")
        .hasMessageNotContaining("Exception");
  }

  @Test
  void aMalformedUnicodeEscapeIsAConfigErrorNamingTheFile() throws IOException {
    // found by PropertiesFuzzTest: Properties.load's bare IllegalArgumentException escaped
    Path f = file("sluice.enabled=\\u12\n");

    assertThatThrownBy(() ->
            SluiceProperties.builder().env(Map.of()).system(Map.of()).file(f).build())
        .isExactlyInstanceOf(SluiceConfigException.class)
        .hasMessageContaining(f.toString())
        .hasMessageContaining("cannot be read: a malformed \\uXXXX escape")
        .hasMessageNotContaining("\n");
  }

  @Test
  void environmentOverridesFileAndSystemPropertiesOverrideBoth() throws IOException {
    Path f = file("""
        sluice.limiters.transcode.max-concurrency=2
        sluice.limiters.transcode.max-queue=10
        sluice.limiters.transcode.queue-timeout=60s
        """);
    SluiceProperties p = SluiceProperties.builder()
        .file(f)
        .env(Map.of(
            "SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY",
            "4",
            "SLUICE_LIMITERS_TRANSCODE_MAX_QUEUE",
            "20",
            "PATH",
            "/usr/bin"))
        .system(Map.of("sluice.limiters.transcode.max-queue", "30"))
        .build();

    assertThat(p.get("sluice.limiters.transcode.max-concurrency")).hasValue("4");
    assertThat(p.get("sluice.limiters.transcode.max-queue")).hasValue("30");
    assertThat(p.get("sluice.limiters.transcode.queue-timeout")).hasValue("60s");
    assertThat(p.source("sluice.limiters.transcode.max-concurrency"))
        .hasValue("environment variable SLUICE_LIMITERS_TRANSCODE_MAX_CONCURRENCY");
    assertThat(p.source("sluice.limiters.transcode.max-queue"))
        .hasValue("system property -Dsluice.limiters.transcode.max-queue");
    assertThat(p.source("sluice.limiters.transcode.queue-timeout")).hasValue("file " + f);
    assertThat(p.asMap()).doesNotContainKey("path");
  }

  @Test
  void defaultsFromAResourceAreTheLowestLayer() throws IOException {
    Path defaults = dir.resolve("application.properties");
    Files.writeString(defaults, """
        sluice.limiters.w.path=/api/w
        sluice.limiters.w.max-queue=3
        sluice.limiters.w.max-concurrency=2
        """);
    Path f = file("sluice.limiters.w.max-queue=4\n");
    SluiceProperties p = SluiceProperties.builder()
        .defaults(defaults.toUri().toURL())
        .file(f)
        .env(Map.of("SLUICE_LIMITERS_W_MAX_CONCURRENCY", "5"))
        .system(Map.of())
        .build();

    assertThat(p.asMap())
        .containsEntry("sluice.limiters.w.path", "/api/w")
        .containsEntry("sluice.limiters.w.max-queue", "4")
        .containsEntry("sluice.limiters.w.max-concurrency", "5");
    assertThat(p.source("sluice.limiters.w.path"))
        .hasValue("resource " + defaults.toUri().toURL());
    assertThat(p.source("sluice.limiters.w.max-queue")).hasValue("file " + f);
    assertThat(p.file()).hasValue(f);
  }

  @Test
  void applicationKeysAreLayeredTheSameWayButNotHandedToThePlugin() throws IOException {
    Path defaults = dir.resolve("application.properties");
    Files.writeString(defaults, """
        server.port=7070
        app.mode=quiet
        app.workers=2
        other.key=x
        sluice.enabled=true
        """);
    Path f = file("server.port=8000\napp.workers=3\n");
    SluiceProperties p = SluiceProperties.builder()
        .defaults(defaults.toUri().toURL())
        .file(f)
        .applicationKeys("server.", "app.")
        .envAlias("PORT", "server.port")
        .env(Map.of("APP_WORKERS", "4", "APP_UNNAMED", "5", "PORT", "8100"))
        .system(Map.of("app.mode", "loud", "app.extra", "6", "user.home", "/root"))
        .build();

    assertThat(p.get("server.port")).hasValue("8100");
    assertThat(p.source("server.port")).hasValue("environment variable PORT");
    assertThat(p.get("app.workers")).hasValue("4");
    assertThat(p.source("app.workers")).hasValue("environment variable APP_WORKERS");
    assertThat(p.get("app.mode")).hasValue("loud");
    assertThat(p.get("app.extra")).as("-D may name a key no file names").hasValue("6");
    assertThat(p.get("app.unnamed"))
        .as("the environment only overrides named keys")
        .isEmpty();
    assertThat(p.get("other.key")).as("not an application prefix").isEmpty();
    assertThat(p.get("user.home")).isEmpty();
    assertThat(p.asMap()).containsOnlyKeys("sluice.enabled");
  }

  @Test
  void aDerivationRunsAfterLayeringAndAgainOnEveryReload() throws IOException {
    Path f = file("sluice.limiters.w.path=/api/w\nsluice.limiters.w.max-concurrency=auto\n");
    SluiceProperties p = SluiceProperties.builder()
        .file(f)
        .env(Map.of())
        .system(Map.of())
        .derive((values, sources) -> {
          String key = "sluice.limiters.w.max-concurrency";
          if ("auto".equals(values.get(key))) {
            values.put(key, "6");
            sources.put(key, "auto (" + sources.get(key) + ")");
          }
          values.remove("sluice.limiters.w.path");
        })
        .build();
    assertThat(p.asMap())
        .containsExactlyEntriesOf(Map.of("sluice.limiters.w.max-concurrency", "6"));
    assertThat(p.source("sluice.limiters.w.max-concurrency")).hasValue("auto (file " + f + ")");
    assertThat(p.source("sluice.limiters.w.path")).as("removed, source too").isEmpty();

    Files.writeString(f, "sluice.limiters.w.max-concurrency=3\n");
    assertThat(p.reload().get("sluice.limiters.w.max-concurrency")).hasValue("3");
    Files.writeString(f, "sluice.limiters.w.max-concurrency=auto\n");
    assertThat(p.reload().get("sluice.limiters.w.max-concurrency")).hasValue("6");
  }

  @Test
  void environmentFindsLimiterNamesWithDashesThatTheFileUses() throws IOException {
    Path f = file("sluice.limiters.video-rescue.path=/api/rescue\n");
    SluiceProperties p = SluiceProperties.builder()
        .file(f)
        .env(Map.of(
            "SLUICE_LIMITERS_VIDEO_RESCUE_MAX_QUEUE",
            "7",
            "SLUICE_RULES_RELOAD_INTERVAL",
            "10s",
            "SLUICE_TRUSTED_PROXIES",
            "10.0.0.0/8"))
        .system(Map.of())
        .build();

    assertThat(p.get("sluice.limiters.video-rescue.max-queue")).hasValue("7");
    assertThat(p.get("sluice.rules.reload-interval")).hasValue("10s");
    assertThat(p.get("sluice.trusted-proxies")).hasValue("10.0.0.0/8");
    assertThat(p.limiterNames()).containsExactly("video-rescue");
  }

  @Test
  void environmentSetsASluiceKeyTheFileNamesByItsEnvForm() throws IOException {
    Path f = file("sluice.ratelimit-service.port=8081\n");
    SluiceProperties p = SluiceProperties.builder()
        .file(f)
        .applicationKeys("sluice.ratelimit-service.")
        .env(Map.of("SLUICE_RATELIMIT_SERVICE_PORT", "9099"))
        .system(Map.of())
        .build();

    assertThat(p.get("sluice.ratelimit-service.port")).hasValue("9099");
    assertThat(p.source("sluice.ratelimit-service.port"))
        .hasValue("environment variable SLUICE_RATELIMIT_SERVICE_PORT");
  }

  @Test
  void durationsAcceptShortFormsAndIso() {
    ValueParser<Duration> duration = ValueParser.duration(false);
    assertThat(duration.parse("500ms")).isEqualTo(Duration.ofMillis(500));
    assertThat(duration.parse("60s")).isEqualTo(Duration.ofSeconds(60));
    assertThat(duration.parse("60m")).isEqualTo(Duration.ofMinutes(60));
    assertThat(duration.parse("2h")).isEqualTo(Duration.ofHours(2));
    assertThat(duration.parse("PT1M")).isEqualTo(Duration.ofMinutes(1));
    assertThatThrownBy(() -> duration.parse("soon")).hasMessageContaining("not a duration");
    assertThatThrownBy(() -> duration.parse("0s")).hasMessageContaining("must be > 0");
    assertThatThrownBy(() -> SluiceKeys.DRAIN_TIMEOUT.parse("sluice.x", "soon", "file a"))
        .hasMessageContaining("sluice.x")
        .hasMessageContaining("'soon'")
        .hasMessageContaining("from file a")
        .hasMessageContaining("500ms, 60s");
  }

  @Test
  void aDurationTooLongForTheLimitersNamesKeyValueAndSource() {
    assertThatThrownBy(() -> LimiterKeys.QUEUE_TIMEOUT.parse(
            "sluice.limiters.work.queue-timeout", "200000d", "environment variable X"))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageStartingWith("sluice.limiters.work.queue-timeout='200000d'"
            + " (from environment variable X): too long");
  }

  @Test
  void everyKindOfBadValueNamesItsKey() {
    Map<String, String> bad = Map.of(
        "sluice.limiters.a.queue-timeout", "forever",
        "sluice.limiters.a.max-concurrency", "0",
        "sluice.limiters.a.scope", "planet",
        "sluice.redis.on-failure", "panic",
        "sluice.status.queue-full", "200",
        "sluice.enabled", "maybe",
        "sluice.redis.timeout", "0s");
    bad.forEach((key, value) -> {
      SluiceProperties p =
          SluiceProperties.builder().env(Map.of()).system(Map.of(key, value)).build();
      assertThatThrownBy(() -> SluiceSettings.resolve(p, Map.of()))
          .as(key)
          .isInstanceOf(SluiceConfigException.class)
          .hasMessageContaining(key)
          .hasMessageContaining(value.contains("/") ? value : "'" + value + "'");
    });
  }
}
