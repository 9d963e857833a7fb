package dev.sluice.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rules.RuleSet;
import dev.sluice.rules.RulesFile;
import dev.sluice.time.VirtualTime;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LocalDoorTest {

  private final VirtualTime time = new VirtualTime();

  @TempDir
  Path dir;

  private LocalDoor door(Map<String, String> system, LocalDoor.Words words, RuleSet code) {
    SluiceProperties p = SluiceProperties.builder().system(system).build();
    SluiceSettings settings = SluiceSettings.resolve(p, new LinkedHashMap<>());
    return LocalDoor.build(settings, p, code, words, time, time, Runnable::run);
  }

  private LocalDoor door(Map<String, String> system) {
    return door(system, LocalDoor.Words.SERVLET_FILTER, null);
  }

  @Test
  void buildsOneLimiterPerDeclaredLimiterOnItsPath() {
    LocalDoor door = door(Map.of(
        "sluice.limiters.history.path", "/api/history/*",
        "sluice.limiters.history.max-concurrency", "2",
        "sluice.limiters.api.path", "/api/work/*"));

    assertThat(door.limiters())
        .extracting(PathLimiter::name)
        .containsExactlyInAnyOrder("history", "api");
    PathLimiter history = PathLimiter.first(door.limiters(), "/api/history/7");
    assertThat(history.name()).isEqualTo("history");
    assertThat(history.limiter().tryAcquire()).isPresent();
    assertThat(history.limiter().tryAcquire()).isPresent();
    assertThat(history.limiter().tryAcquire()).isEmpty(); // max-concurrency 2 from the property
    assertThat(PathLimiter.first(door.limiters(), "/api/work/7").name()).isEqualTo("api");
    assertThat(PathLimiter.first(door.limiters(), "/health")).isNull();
    assertThat(door.rules()).isNull();
  }

  @Test
  void aDisabledDoorBuildsNothing() {
    LocalDoor door = door(Map.of(
        "sluice.enabled", "false",
        "sluice.limiters.api.scope", "global")); // not refused: nothing is built

    assertThat(door.limiters()).isEmpty();
    assertThat(door.rules()).isNull();
  }

  @Test
  void aLimiterWithoutAPathIsRefusedInTheDoorsWords() {
    assertThatThrownBy(() -> door(
            Map.of("sluice.limiters.work.max-concurrency", "2"),
            LocalDoor.Words.GRPC_INTERCEPTOR,
            null))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.path")
        .hasMessageContaining("a limiter of the gRPC interceptor needs the methods it guards");
  }

  @Test
  void aGlobalLimiterIsRefusedNamingKeyValueAndSource() {
    assertThatThrownBy(() -> door(
            Map.of("sluice.limiters.work.path", "/api/*", "sluice.limiters.work.scope", "global")))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.scope")
        .hasMessageContaining("global")
        .hasMessageContaining("system property")
        .hasMessageContaining("the servlet filter runs local limiters only");
  }

  @Test
  void aCostOtherThanOneIsRefusedInTheDoorsUnit() {
    assertThatThrownBy(() -> door(
            Map.of("sluice.limiters.work.path", "/pkg.S/*", "sluice.limiters.work.cost", "2"),
            LocalDoor.Words.GRPC_INTERCEPTOR,
            null))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.limiters.work.cost")
        .hasMessageContaining("counts every call as 1");
  }

  @Test
  void rulesInCodeApplyAndARulesFileWinsOverThem() throws Exception {
    RuleSet code = RulesFile.parse("code", """
            rules:
              - id: code
                resource: /api/*
                actor: all
                limit: 1
                unit: minute
            """);
    LocalDoor fromCode = door(Map.of(), LocalDoor.Words.SERVLET_FILTER, code);
    assertThat(fromCode.rules()).isNotNull();
    assertThat(fromCode.rules().guards("GET", "/api/x")).isTrue();

    Path file = dir.resolve("rules.yaml");
    Files.writeString(file, """
            rules:
              - id: file
                resource: /other/*
                actor: all
                limit: 1
                unit: minute
            """);
    LocalDoor fromFile =
        door(Map.of("sluice.rules.file", file.toString()), LocalDoor.Words.SERVLET_FILTER, code);
    assertThat(fromFile.rules().guards("GET", "/other/x")).isTrue();
    assertThat(fromFile.rules().guards("GET", "/api/x")).isFalse();
  }

  @Test
  void aGlobalOrShaperRuleIsRefusedNamingTheRule() throws IOException {
    Path global = dir.resolve("global.yaml");
    Files.writeString(global, """
            rules:
              - id: shared
                resource: /api/*
                actor: all
                limit: 1
                unit: minute
                scope: global
            """);
    assertThatThrownBy(() -> door(Map.of("sluice.rules.file", global.toString())))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("sluice.rules.file")
        .hasMessageContaining("rule 'shared' has scope global")
        .hasMessageContaining("the servlet filter counts rules locally only");

    Path shaper = dir.resolve("shaper.yaml");
    Files.writeString(shaper, """
            rules:
              - id: paced
                resource: /api/*
                actor: all
                limit: 1
                unit: second
                algorithm: leaky-bucket-shaper
            """);
    assertThatThrownBy(() -> door(
            Map.of("sluice.rules.file", shaper.toString()), LocalDoor.Words.GRPC_INTERCEPTOR, null))
        .isInstanceOf(SluiceConfigException.class)
        .hasMessageContaining("rule 'paced' is a shaper")
        .hasMessageContaining("does not hold calls back");
  }
}
