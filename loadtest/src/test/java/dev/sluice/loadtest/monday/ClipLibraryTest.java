package dev.sluice.loadtest.monday;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClipLibraryTest {

  @TempDir
  Path dir;

  @Test
  void theMondayLibraryHoldsEveryDurationFrom2To60SecondsAt360pAnd720p() {
    List<Clip> clips = ClipLibrary.MONDAY.clips();

    assertThat(clips).hasSize(12);
    assertThat(clips).extracting(Clip::seconds).containsOnly(2, 5, 10, 20, 40, 60);
    assertThat(clips).extracting(Clip::height).containsOnly(360, 720);
    assertThat(clips.get(0)).isEqualTo(new Clip(2, 360));
    assertThat(clips.get(11)).isEqualTo(new Clip(60, 720));
  }

  @Test
  void aClipIs16By9WithAnEvenWidthAndANameThatSaysWhatItIs() {
    assertThat(new Clip(10, 360).width()).isEqualTo(640);
    assertThat(new Clip(10, 720).width()).isEqualTo(1280);
    assertThat(new Clip(1, 90).width()).isEqualTo(160);
    assertThat(new Clip(10, 360).fileName()).isEqualTo("testsrc2-10s-360p.mp4");
  }

  @Test
  void theDeclaredCostIsTenSecondsOf360pPerUnitRoundedUpAtLeastOne() {
    assertThat(new Clip(10, 360).costUnits()).isEqualTo(1);
    assertThat(new Clip(2, 360).costUnits()).isEqualTo(1);
    assertThat(new Clip(11, 360).costUnits()).isEqualTo(2);
    assertThat(new Clip(60, 720).costUnits()).isEqualTo(12);
  }

  @Test
  void aHostAsksForTheDemosRenditionsBelowTheClipOr240() {
    assertThat(new Clip(10, 720).renditions()).containsExactly(240, 360);
    assertThat(new Clip(10, 360).renditions()).containsExactly(240);
    assertThat(new Clip(1, 144).renditions()).containsExactly(240);
  }

  @Test
  void theRescueJobTakesTheLowestClipNearestTenSeconds() {
    assertThat(ClipLibrary.MONDAY.rescueClip()).isEqualTo(new Clip(10, 360));
    assertThat(ClipLibrary.plan(List.of(1, 2), List.of(180, 360)).rescueClip())
        .isEqualTo(new Clip(2, 180));
  }

  @Test
  void theCommandMakesTheClipWithTestsrc2AtItsSizeAndLength() {
    List<String> command = ClipLibrary.command("ffmpeg", new Clip(20, 720), dir.resolve("x.mp4"));

    assertThat(command).first().isEqualTo("ffmpeg");
    assertThat(command)
        .contains(
            "lavfi",
            "testsrc2=duration=20:size=1280x720:rate=25",
            "libx264",
            dir.resolve("x.mp4").toString());
  }

  @Test
  void onlyClipsMissingOrEmptyInTheFolderAreMadeAgain() throws Exception {
    ClipLibrary library = ClipLibrary.plan(List.of(2, 5), List.of(360));
    Files.write(dir.resolve("testsrc2-2s-360p.mp4"), new byte[] {1});
    Files.createFile(dir.resolve("testsrc2-5s-360p.mp4"));

    assertThat(library.missing(dir)).containsExactly(new Clip(5, 360));
  }

  @Test
  void aLibraryWithEveryClipPresentRunsNoFfmpeg() throws Exception {
    ClipLibrary library = ClipLibrary.plan(List.of(2), List.of(360));
    Files.write(dir.resolve("testsrc2-2s-360p.mp4"), new byte[] {1});

    // an ffmpeg that does not exist would fail the run if it were called
    assertThat(library.ensure(dir, dir.resolve("no-such-ffmpeg").toString()))
        .containsExactly(dir.resolve("testsrc2-2s-360p.mp4"));
  }

  @Test
  void aMissingFfmpegIsNamedWithHowToInstallIt() {
    ClipLibrary library = ClipLibrary.plan(List.of(2), List.of(360));

    assertThatThrownBy(() -> library.ensure(dir, dir.resolve("no-such-ffmpeg").toString()))
        .hasMessageContaining("no-such-ffmpeg")
        .hasMessageContaining("apt-get install ffmpeg");
    assertThat(dir.resolve("testsrc2-2s-360p.mp4")).doesNotExist();
  }

  @Test
  void badClipsAndEmptyLibrariesAreRefused() {
    assertThatThrownBy(() -> new Clip(0, 360)).hasMessageContaining("0 s");
    assertThatThrownBy(() -> new Clip(2, 361)).hasMessageContaining("361p");
    assertThatThrownBy(() -> ClipLibrary.plan(List.of(), List.of(360)))
        .hasMessageContaining("at least one clip");
  }
}
