package dev.sluice.loadtest.monday;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The footage the replay re-transcodes: clips made once by ffmpeg's {@code testsrc2} source and
 * cached in a folder (a later run with the same {@code --out} reuses them). The plan is pure; only
 * {@link #ensure} runs ffmpeg.
 *
 * @param clips every clip, each seconds x height once
 */
public record ClipLibrary(List<Clip> clips) {

  /** The replay's library: 2 to 60 s, at 360p and 720p (12 clips). */
  public static final ClipLibrary MONDAY = plan(List.of(2, 5, 10, 20, 40, 60), List.of(360, 720));

  /** @throws IllegalArgumentException no clip */
  public ClipLibrary {
    clips = List.copyOf(clips);
    if (clips.isEmpty()) {
      throw new IllegalArgumentException("a clip library needs at least one clip");
    }
  }

  /** Every duration at every height, shortest first, then lowest. */
  public static ClipLibrary plan(List<Integer> seconds, List<Integer> heights) {
    List<Clip> clips = new ArrayList<>();
    for (int s : seconds.stream().distinct().sorted().toList()) {
      for (int h : heights.stream().distinct().sorted().toList()) {
        clips.add(new Clip(s, h));
      }
    }
    return new ClipLibrary(clips);
  }

  /**
   * The rescue job's clip: the lowest clip nearest 10 s (the on-premise job restores short pieces
   * of footage, so it is not the one that costs most).
   */
  public Clip rescueClip() {
    return clips.stream()
        .min(Comparator.comparingInt((Clip c) -> c.height())
            .thenComparingInt(c -> Math.abs(c.seconds() - 10)))
        .orElseThrow();
  }

  /**
   * The ffmpeg command that makes {@code clip} into {@code file}: {@code testsrc2} (a moving test
   * pattern, so the encoder has real work), 25 fps, libx264 {@code veryfast} at CRF 30 (a minute of
   * 720p stays under 10 MB, well inside the demo's upload bound), index in front.
   */
  static List<String> command(String ffmpeg, Clip clip, Path file) {
    return List.of(
        ffmpeg,
        "-nostdin",
        "-hide_banner",
        "-v",
        "error",
        "-y",
        "-f",
        "lavfi",
        "-i",
        "testsrc2=duration=" + clip.seconds() + ":size=" + clip.width() + "x" + clip.height()
            + ":rate=25",
        "-c:v",
        "libx264",
        "-preset",
        "veryfast",
        "-crf",
        "30",
        "-pix_fmt",
        "yuv420p",
        "-movflags",
        "+faststart",
        file.toString());
  }

  /** The clips not yet in {@code dir} (a missing or empty file), in plan order. */
  public List<Clip> missing(Path dir) {
    return clips.stream()
        .filter(c -> {
          Path file = dir.resolve(c.fileName());
          try {
            return !Files.isRegularFile(file) || Files.size(file) == 0;
          } catch (IOException e) {
            return true;
          }
        })
        .toList();
  }

  /**
   * Makes the missing clips in {@code dir} with {@code ffmpeg} and returns where each clip is. A
   * clip is written under a temporary name and moved into place when ffmpeg succeeded, so a run
   * stopped half way never leaves a broken clip to be reused.
   *
   * @throws IOException ffmpeg missing or failing, with its last words
   */
  public List<Path> ensure(Path dir, String ffmpeg) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    for (Clip clip : missing(dir)) {
      Path partial = dir.resolve(clip.fileName() + ".partial.mp4");
      Process process;
      try {
        process = new ProcessBuilder(command(ffmpeg, clip, partial))
            .redirectErrorStream(true)
            .start();
      } catch (IOException e) {
        throw new IOException(
            "cannot run " + ffmpeg + " to make the clip library ("
                + "--scenario monday needs ffmpeg on PATH: apt-get install ffmpeg): "
                + e.getMessage(),
            e);
      }
      String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!process.waitFor(10, TimeUnit.MINUTES) || process.exitValue() != 0) {
        process.destroyForcibly();
        Files.deleteIfExists(partial);
        throw new IOException("ffmpeg could not make the clip " + clip + ": " + output.trim());
      }
      Files.move(partial, dir.resolve(clip.fileName()), StandardCopyOption.REPLACE_EXISTING);
    }
    return clips.stream().map(c -> dir.resolve(c.fileName())).toList();
  }
}
