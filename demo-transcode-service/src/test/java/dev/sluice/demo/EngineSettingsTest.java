package dev.sluice.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code demo.engine} and the {@code demo.ffmpeg.*} keys, checked when the service starts; no ffmpeg needed. */
class EngineSettingsTest {

  private static DemoSettings load(Map<String, String> system) {
    return DemoSettings.load(new String[0], Map.of(), system, 2);
  }

  @Test
  void framesIsTheDefaultEngine() {
    assertThat(load(Map.of()).engine()).isEqualTo(Engine.FRAMES);
    assertThat(load(Map.of("demo.engine", "FFmpeg")).engine()).isEqualTo(Engine.FFMPEG);
  }

  @Test
  void anUnknownEngineStopsStartUpNamingTheKey() {
    assertThatThrownBy(() -> load(Map.of("demo.engine", "gstreamer")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("demo.engine must be frames or ffmpeg but was 'gstreamer'");
  }

  @Test
  void aBadFfmpegValueStopsStartUpNamingKeyAndValue() {
    assertThatThrownBy(() -> load(Map.of("demo.engine", "ffmpeg", "demo.ffmpeg.threads", "0")))
        .hasMessageContaining("demo.ffmpeg.threads")
        .hasMessageContaining("'0'");
    assertThatThrownBy(() -> load(Map.of("demo.engine", "ffmpeg", "demo.ffmpeg.preset", "turbo")))
        .hasMessageContaining("demo.ffmpeg.preset")
        .hasMessageContaining("'turbo'");
    assertThatThrownBy(() -> load(Map.of("demo.engine", "ffmpeg", "demo.ffmpeg.timeout", "soon")))
        .hasMessageContaining("demo.ffmpeg.timeout")
        .hasMessageContaining("'soon'");
    assertThatThrownBy(
            () -> load(Map.of("demo.engine", "ffmpeg", "demo.ffmpeg.cost-header", "X Cost")))
        .hasMessageContaining("demo.ffmpeg.cost-header")
        .hasMessageContaining("'X Cost'");
    // the frames engine does not read them
    assertThat(load(Map.of("demo.ffmpeg.threads", "0")).engine()).isEqualTo(Engine.FRAMES);
  }

  @Test
  void ffmpegMissingFromPathStopsStartUpWithOneLine(@TempDir Path emptyBin) {
    DemoSettings settings = load(Map.of("server.port", "0", "demo.engine", "ffmpeg"));
    assertThatThrownBy(() -> TranscodeService.start(settings, emptyBin.toString()))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("demo.engine=ffmpeg but ffmpeg is not on PATH")
        .hasMessageContaining("apt-get install ffmpeg")
        .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
  }

  @Test
  void theCostEstimateIsMegapixelsThroughTheCodecs() {
    Footage fourSeconds360p = new Footage(4, 640, 360, 25);
    // 4 s x 25 fps x (640 x 360 decoded + 426 x 240 encoded) / 10^6
    assertThat(fourSeconds360p.costEstimate(Rendition.P240)).isCloseTo(33.264, within(1e-9));
    assertThat(fourSeconds360p.costEstimate(Rendition.P720)).isCloseTo(115.2, within(1e-9));
    assertThat(new Footage(8, 640, 360, 25).costEstimate(Rendition.P240))
        .isCloseTo(2 * 33.264, within(1e-9));
  }
}
