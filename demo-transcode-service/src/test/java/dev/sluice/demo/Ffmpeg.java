package dev.sluice.demo;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The real ffmpeg for the engine's tests: clips made by its {@code lavfi} test source, and what a
 * test counts afterwards (child processes, files left). Without ffmpeg on PATH a test fails when
 * {@code CI=true} and is skipped, loudly, everywhere else.
 */
final class Ffmpeg {

  private Ffmpeg() {}

  static void require() {
    try {
      FfmpegTools.onPath(System.getenv("PATH"));
    } catch (IllegalStateException e) {
      String message =
          "the ffmpeg engine's tests need ffmpeg and ffprobe on PATH (apt-get install ffmpeg)";
      if ("true".equalsIgnoreCase(System.getenv("CI"))) {
        Assertions.fail(message + " and CI=true, so this is a failure, not a skip");
      }
      System.err.println("!!!!!!!!!! SKIPPED: " + message + " !!!!!!!!!!");
      Assumptions.assumeTrue(false, message);
    }
  }

  /** A test-pattern clip, {@code seconds} long at {@code size} (e.g. 640x360), 25 fps, H.264 in mp4. */
  static Path clip(Path dir, int seconds, String size) throws IOException, InterruptedException {
    Path clip = dir.resolve("testsrc-" + seconds + "s-" + size + ".mp4");
    Process ffmpeg = new ProcessBuilder(
            "ffmpeg",
            "-nostdin",
            "-v",
            "error",
            "-y",
            "-f",
            "lavfi",
            "-i",
            "testsrc=duration=" + seconds + ":size=" + size + ":rate=25",
            "-c:v",
            "libx264",
            "-preset",
            "ultrafast",
            "-pix_fmt",
            "yuv420p",
            clip.toString())
        .redirectErrorStream(true)
        .start();
    String output = new String(ffmpeg.getInputStream().readAllBytes(), UTF_8);
    if (ffmpeg.waitFor() != 0) {
      throw new IllegalStateException("ffmpeg could not make a test clip: " + output);
    }
    return clip;
  }

  /** ffmpeg and ffprobe processes below this JVM: the engine's children. */
  static List<ProcessHandle> children() {
    return ProcessHandle.current()
        .descendants()
        .filter(p -> p.info()
            .command()
            .map(c -> c.endsWith("/ffmpeg") || c.endsWith("/ffprobe"))
            .orElse(false))
        .toList();
  }

  static boolean anyFfmpegRunning() {
    return children().stream().anyMatch(p -> p.info().command().orElse("").endsWith("/ffmpeg"));
  }

  /** What the engine left in its temp folder. */
  static List<Path> files(Path tempDir) throws IOException {
    if (!Files.exists(tempDir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(tempDir)) {
      return files.toList();
    }
  }
}
