package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DemoSettingsTest {

  @TempDir
  Path dir;

  private static DemoSettings load(
      String[] args, Map<String, String> env, Map<String, String> system) {
    return DemoSettings.load(args, env, system, 2);
  }

  @Test
  void jarDefaultsServeOn7070WithACpuTargetLimitUnderACeilingDerivedFromTheCores() {
    DemoSettings settings = load(new String[0], Map.of(), Map.of());
    assertThat(settings.port()).isEqualTo(7070);
    assertThat(settings.sluice())
        .containsEntry("sluice.limiters.transcode.path", "/api/transcode")
        .containsEntry("sluice.limiters.transcode.limit", "cpu")
        .containsEntry("sluice.limiters.transcode.target-cpu", "0.7")
        .containsEntry("sluice.limiters.transcode.reject-early", "true")
        .containsEntry("sluice.limiters.transcode.max-concurrency", "16")
        .containsEntry("sluice.limiters.rescue.path", "/api/rescue")
        .containsEntry("sluice.enabled", "true")
        .doesNotContainKey("server.port");
    assertThat(DemoSettings.load(new String[0], Map.of(), Map.of(), 8).sluice())
        .containsEntry("sluice.limiters.transcode.max-concurrency", "64");
    // demo.cpu-target is the CPU limit's target, unless target-cpu is given
    assertThat(load(new String[0], Map.of(), Map.of("demo.cpu-target", "0.6")).sluice())
        .containsEntry("sluice.limiters.transcode.target-cpu", "0.6");
    assertThat(load(
                new String[0],
                Map.of(),
                Map.of("demo.cpu-target", "0.6", "sluice.limiters.transcode.target-cpu", "65%"))
            .sluice())
        .containsEntry("sluice.limiters.transcode.target-cpu", "65%");
    // the static limit of before still works: fixed, auto = round(0.7 x cores), no target-cpu
    assertThat(DemoSettings.load(
                new String[0], Map.of(), Map.of("sluice.limiters.transcode.limit", "fixed"), 8)
            .sluice())
        .containsEntry("sluice.limiters.transcode.max-concurrency", "6")
        .doesNotContainKey("sluice.limiters.transcode.target-cpu");
  }

  @Test
  void autoConcurrencyRoundsTheTargetShareOfTheCoresAndNeverGoesBelowOne() {
    assertThat(DemoSettings.autoConcurrency(1, 0.7)).isEqualTo(1);
    assertThat(DemoSettings.autoConcurrency(2, 0.7)).isEqualTo(1);
    assertThat(DemoSettings.autoConcurrency(4, 0.7)).isEqualTo(3);
    assertThat(DemoSettings.autoConcurrency(16, 0.7)).isEqualTo(11);
    assertThat(DemoSettings.autoConcurrency(2, 0.1)).isEqualTo(1);
  }

  @Test
  void autoIsTheCpuShareForAFixedLimitAndACeilingForAnAdaptiveOne() {
    String limit = "sluice.limiters.transcode.limit";
    String max = "sluice.limiters.transcode.max-concurrency";
    assertThat(
            load(new String[0], Map.of(), Map.of(limit, "fixed", max, "auto")).sluice())
        .containsEntry(max, "1");
    assertThat(load(new String[0], Map.of(), Map.of(limit, "cpu", max, "auto")).sluice())
        .containsEntry(max, "16");
    assertThat(DemoSettings.load(new String[0], Map.of(), Map.of(limit, "latency", max, "auto"), 8)
            .sluice())
        .containsEntry(max, "64");
    // a number is kept as it is, whatever the strategy
    assertThat(load(new String[0], Map.of(), Map.of(limit, "cpu", max, "5")).sluice())
        .containsEntry(max, "5");
    assertThat(load(new String[0], Map.of(), Map.of(limit, "fixed", max, "3")).sluice())
        .containsEntry(max, "3");
  }

  @Test
  void configFileThenEnvironmentThenSystemPropertiesEachWin() throws Exception {
    Path file = dir.resolve("demo.properties");
    Files.writeString(file, """
        server.port=8000
        sluice.limiters.transcode.max-queue=4
        sluice.limiters.transcode.max-concurrency=3
        sluice.enabled=false
        """);
    String[] args = {"--config", file.toString()};

    assertThat(load(args, Map.of(), Map.of()).port()).isEqualTo(8000);
    assertThat(load(args, Map.of(), Map.of()).sluice())
        .containsEntry("sluice.limiters.transcode.max-queue", "4")
        .containsEntry("sluice.limiters.transcode.max-concurrency", "3")
        .containsEntry("sluice.enabled", "false");

    Map<String, String> env = Map.of("PORT", "8100", "SLUICE_LIMITERS_TRANSCODE_MAX_QUEUE", "5");
    assertThat(load(args, env, Map.of()).port()).isEqualTo(8100);
    assertThat(load(args, env, Map.of()).sluice())
        .containsEntry("sluice.limiters.transcode.max-queue", "5");

    Map<String, String> system = Map.of(
        "server.port", "8200", "sluice.limiters.transcode.max-queue", "6", "user.home", "/x");
    DemoSettings top = load(new String[] {"--config=" + file}, env, system);
    assertThat(top.port()).isEqualTo(8200);
    assertThat(top.sluice()).containsEntry("sluice.limiters.transcode.max-queue", "6");
  }

  @Test
  void theConfigFileIsThePluginsPropertiesFileAndAutoIsWorkedOutAgainOnEveryReload()
      throws Exception {
    Path file = dir.resolve("demo.properties");
    Files.writeString(file, """
        sluice.limiters.transcode.limit=fixed
        sluice.limiters.transcode.max-concurrency=auto
        """);
    DemoSettings settings = load(new String[] {"--config", file.toString()}, Map.of(), Map.of());
    assertThat(settings.sluiceProperties().file()).hasValue(file);
    assertThat(settings.sluice()).containsEntry(DemoSettings.TRANSCODE_CONCURRENCY, "1");
    assertThat(settings.sluiceProperties().source(DemoSettings.TRANSCODE_CONCURRENCY))
        .hasValue("auto on 2 cores (file " + file + ")");

    Files.writeString(file, """
        sluice.limiters.transcode.limit=fixed
        sluice.limiters.transcode.max-concurrency=3
        """);
    assertThat(settings.sluiceProperties().reload().asMap())
        .containsEntry(DemoSettings.TRANSCODE_CONCURRENCY, "3");
    Files.writeString(file, "sluice.limiters.transcode.limit=cpu\n");
    assertThat(settings.sluiceProperties().reload().asMap())
        .as("the jar's auto, for an adaptive limit")
        .containsEntry(DemoSettings.TRANSCODE_CONCURRENCY, "16");
  }

  @Test
  void badInputNamesTheKeyOrOptionAndTheValue() {
    assertThatThrownBy(() -> load(new String[0], Map.of("PORT", "seventy"), Map.of()))
        .hasMessageContaining("server.port")
        .hasMessageContaining("seventy")
        .hasMessageContaining("environment variable PORT");
    assertThatThrownBy(() -> load(new String[0], Map.of(), Map.of("demo.max-cpu-millis", "0")))
        .hasMessageContaining("demo.max-cpu-millis")
        .hasMessageContaining("'0'");
    assertThatThrownBy(() -> load(new String[0], Map.of(), Map.of("demo.cpu-target", "1.5")))
        .hasMessageContaining("demo.cpu-target")
        .hasMessageContaining("1.5")
        .hasMessageContaining("system property -Ddemo.cpu-target");
    assertThatThrownBy(() ->
            load(new String[] {"--config", dir.resolve("missing").toString()}, Map.of(), Map.of()))
        .hasMessageContaining("--config")
        .hasMessageContaining("missing");
    assertThatThrownBy(() -> load(new String[] {"--port", "1"}, Map.of(), Map.of()))
        .hasMessageContaining("--port");
  }

  @Test
  void theTranscodeQueueIsFairByHostWithOnePlacePerHostAndPriorityClasses() {
    assertThat(load(new String[0], Map.of(), Map.of()).sluice())
        .containsEntry("sluice.limiters.transcode.queue", "fair")
        .containsEntry("sluice.limiters.transcode.queue-key", "header:X-Host-Id")
        .containsEntry("sluice.limiters.transcode.max-queue-per-key", "1")
        .containsEntry("sluice.limiters.transcode.max-queue", "40")
        .containsEntry("sluice.limiters.transcode.priority-header", "X-Priority");
  }

  @Test
  void anEmptyValueInALaterLayerUnsetsTheKey() {
    DemoSettings fifo = load(
        new String[0],
        Map.of("SLUICE_LIMITERS_TRANSCODE_PRIORITY_HEADER", ""),
        Map.of(
            "sluice.limiters.transcode.queue",
            "fifo",
            "sluice.limiters.transcode.queue-key",
            " ",
            "sluice.limiters.transcode.max-queue-per-key",
            "0"));
    assertThat(fifo.sluice())
        .containsEntry("sluice.limiters.transcode.queue", "fifo")
        .doesNotContainKey("sluice.limiters.transcode.queue-key")
        .doesNotContainKey("sluice.limiters.transcode.priority-header");
    assertThat(fifo.get("sluice.limiters.transcode.queue-key")).isEmpty();
  }

  @Test
  void aFixedFrameRateIsReadAndABadOneNamesTheKeyTheValueAndItsSource() {
    assertThat(load(new String[0], Map.of(), Map.of()).framesPerMilli()).isEmpty();
    assertThat(load(new String[0], Map.of(), Map.of("demo.frames-per-milli", "0.45"))
            .framesPerMilli())
        .hasValue(0.45);
    for (String bad : new String[] {"0", "-1", "fast", "NaN", "Infinity"}) {
      assertThatThrownBy(() -> load(new String[0], Map.of(), Map.of("demo.frames-per-milli", bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("demo.frames-per-milli")
          .hasMessageContaining("'" + bad + "'")
          .hasMessageContaining("system property");
    }
  }

  @Test
  void aMisspeltDemoKeyStopsStartUpNamingItsSourceAndTheNearestKey() throws Exception {
    assertThatThrownBy(() -> load(new String[0], Map.of(), Map.of("demo.engin", "ffmpeg")))
        .isInstanceOf(dev.sluice.config.SluiceConfigException.class)
        .hasMessage("demo.engin='ffmpeg' (from system property -Ddemo.engin): unknown key;"
            + " did you mean 'demo.engine'? (set sluice.strict=false to only warn)");

    Path file = dir.resolve("demo.properties");
    Files.writeString(file, "demo.ffmpeg.max-byte=1000\n");
    assertThatThrownBy(() -> load(new String[] {"--config", file.toString()}, Map.of(), Map.of()))
        .hasMessageStartingWith("demo.ffmpeg.max-byte='1000' (from file " + file + ")")
        .hasMessageContaining("did you mean 'demo.ffmpeg.max-bytes'?");
  }

  @Test
  void aPeerThatIsNotOnTheClassPathIsRefusedNamingTheKeyTheValueAndWhereThePeersAre() {
    // the peers live in the load test's class path (loadtest-peers), not in the demo
    assertThatThrownBy(
            () -> load(new String[0], Map.of(), Map.of("demo.limiter-peer", "netflix-vegas")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("demo.limiter-peer=netflix-vegas is not one of none ")
        .hasMessageContaining("loadtest.jar");
  }

  @Test
  void everyDemoKeyTheServiceReadsIsKnownAndLenientModeOnlyWarns() {
    // the jar's own application.properties names only known keys
    assertThat(load(new String[0], Map.of(), Map.of()).port()).isEqualTo(7070);
    assertThat(load(
                new String[0],
                Map.of(),
                Map.of(
                    "demo.limiter-peer", "none",
                    "demo.limiter-peer.partitions", "a,b",
                    "demo.overhead-peer", "none",
                    "demo.frames-per-milli", "0.5"))
            .framesPerMilli())
        .hasValue(0.5);
    assertThat(
            load(new String[0], Map.of(), Map.of("sluice.strict", "false", "demo.engin", "ffmpeg"))
                .engine())
        .isEqualTo(Engine.FRAMES);
  }

  @Test
  void theGrpcDoorIsOffUnlessItsPortIsSet() {
    assertThat(load(new String[0], Map.of(), Map.of()).grpcPort()).isZero();
    assertThat(load(new String[0], Map.of(), Map.of("demo.grpc.port", "9090")).grpcPort())
        .isEqualTo(9090);
    // a key the jar names is overridden from the environment like the others
    assertThat(load(new String[0], Map.of("DEMO_GRPC_PORT", "9091"), Map.of()).grpcPort())
        .isEqualTo(9091);
  }

  @Test
  void aBadGrpcPortStopsTheStartNamingKeyAndValue() {
    for (String bad : new String[] {"-1", "70000", "grpc"}) {
      assertThatThrownBy(() -> load(new String[0], Map.of(), Map.of("demo.grpc.port", bad)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("demo.grpc.port")
          .hasMessageContaining("'" + bad + "'");
    }
  }

  @Test
  void theGrpcDoorWithTheFfmpegEngineIsRefusedAtStart() {
    DemoSettings settings = load(
        new String[0],
        Map.of(),
        Map.of("demo.grpc.port", "9090", "demo.engine", "ffmpeg", "server.port", "0"));
    assertThatThrownBy(() -> TranscodeService.start(settings, ""))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("demo.grpc.port=9090")
        .hasMessageContaining("frames engine");
  }
}
