package dev.sluice.loadtest.overload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.Options;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class OverloadOptionsTest {

  @Test
  void theScenarioRunsTheWholeSweepOfTwentySecondPointsByDefault() {
    Options o = Options.parse("--embedded", "--scenario", "overload");

    assertThat(o.experiment()).isInstanceOf(OverloadRun.class);
    assertThat(o.duration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(o.overload().points()).containsExactly(1.0, 2.0, 5.0, 10.0);
    assertThat(o.overload().jobs())
        .containsExactly(JobKind.SHORT, JobKind.LONG, JobKind.SIZES, JobKind.WIDE);
    assertThat(o.overload().step()).isFalse();
    assertThat(o.variantList()).isEmpty();
    // other scenarios keep their own default duration
    assertThat(Options.parse("--embedded", "--scenario", "adaptive").duration())
        .isEqualTo(Duration.ofSeconds(60));
  }

  @Test
  void pointsJobsVariantsStepAndDurationAreTaken() {
    Options o = Options.parse(
        "--embedded",
        "--scenario",
        "overload",
        "--points",
        "1, 2.5,10",
        "--jobs",
        "sizes,short",
        "--variants",
        "fifo,cost-learned",
        "--step",
        "--duration",
        "9s");

    assertThat(o.overload().points()).containsExactly(1.0, 2.5, 10.0);
    assertThat(o.overload().jobs()).containsExactly(JobKind.SIZES, JobKind.SHORT);
    assertThat(o.overload().step()).isTrue();
    assertThat(o.variantList()).isEqualTo(Optional.of("fifo,cost-learned"));
    assertThat(o.duration()).isEqualTo(Duration.ofSeconds(9));
    assertThat(Options.parse("--embedded", "--scenario", "overload", "--points", "none", "--step")
            .overload()
            .points())
        .isEmpty();
  }

  @Test
  void badValuesAreRefusedNamingTheOptionAndTheValue() {
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "overload", "--points", "1,0"))
        .hasMessageContaining("--points")
        .hasMessageContaining("'1,0'");
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "overload", "--points", "x"))
        .hasMessageContaining("--points")
        .hasMessageContaining("'x'");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "overload", "--jobs", "medium"))
        .hasMessageContaining("--jobs")
        .hasMessageContaining("medium")
        .hasMessageContaining("short, long, sizes");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "overload", "--variants", "fifo,bbr"))
        .hasMessageContaining("--variants")
        .hasMessageContaining("bbr")
        .hasMessageContaining("standing");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "overload", "--points", "none"))
        .hasMessageContaining("--points none")
        .hasMessageContaining("--step");
    assertThatThrownBy(() ->
            Options.parse("--embedded", "--scenario", "overload", "--step", "--duration", "5s"))
        .hasMessageContaining("--step")
        .hasMessageContaining("--duration");
    assertThatThrownBy(() -> Options.parse("--target", "http://x", "--scenario", "overload"))
        .hasMessageContaining("--embedded");
  }

  @Test
  void variantsAreCheckedByTheScenarioThatReadsThem() {
    // the adaptive names are not the overload ones, and the other way round
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "adaptive", "--variants", "standing"))
        .hasMessageContaining("--variants")
        .hasMessageContaining("standing");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "overload", "--variants", "latency"))
        .hasMessageContaining("--variants")
        .hasMessageContaining("latency");
    assertThat(Options.parse("--embedded", "--scenario", "adaptive").adaptiveVariants())
        .isEqualTo(dev.sluice.loadtest.adaptive.AdaptiveVariant.DEFAULT_NAMES);
  }

  @Test
  void theSweepsOptionsAreRefusedWithAnotherScenario() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "adaptive", "--points", "2"))
        .hasMessageContaining("--points")
        .hasMessageContaining("overload")
        .hasMessageContaining("adaptive");
    assertThatThrownBy(() -> Options.parse("--embedded", "--step"))
        .hasMessageContaining("--step")
        .hasMessageContaining("overload");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "steady", "--variants", "fifo"))
        .hasMessageContaining("--variants")
        .hasMessageContaining("adaptive, overload")
        .hasMessageContaining("steady");
  }

  @Test
  void theGrpcDoorAndFourHundredMillisecondJobsAreTakenWithoutChangingTheDefaults() {
    Options o = Options.parse(
        "--embedded", "--scenario", "overload", "--door", "grpc", "--jobs", "long400");

    assertThat(o.door()).isEqualTo(dev.sluice.loadtest.engine.Door.GRPC);
    assertThat(o.overload().jobs()).containsExactly(JobKind.LONG400);
    assertThat(JobKind.LONG400.meanCpuMillis()).isEqualTo(400);
    assertThat(JobKind.LONG400.path(0)).isEqualTo("/api/transcode?cpuMillis=400");
    // the existing kinds keep their meaning, and the default list stays the four of them
    assertThat(JobKind.LONG.meanCpuMillis()).isEqualTo(200);
    assertThat(Options.parse("--embedded", "--scenario", "overload").door())
        .isEqualTo(dev.sluice.loadtest.engine.Door.HTTP);
    assertThat(Options.parse("--embedded", "--scenario", "overload", "--door", "grpc")
            .overload()
            .jobs())
        .doesNotContain(JobKind.LONG400);
  }

  @Test
  void theGrpcDoorRefusesWhatItCannotMeasure() {
    // a fresh demo per run gets a free port: there is no one port to give
    assertThatThrownBy(() -> Options.parse(
            "--embedded", "--scenario", "overload", "--door", "grpc", "--grpc-port", "9090"))
        .hasMessageContaining("--grpc-port is for --scenario")
        .hasMessageContaining("not overload");
    // under a limiter peer the demo's gRPC door is unguarded
    assertThatThrownBy(() -> Options.parse(
            "--embedded",
            "--scenario",
            "overload",
            "--door",
            "grpc",
            "--variants",
            "standing,netflix-vegas"))
        .hasMessageContaining("--door grpc")
        .hasMessageContaining("netflix-vegas")
        .hasMessageContaining("unguarded");
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "overload", "--door", "h3"))
        .hasMessageContaining("--door must be http or grpc but was 'h3'");
  }
}
