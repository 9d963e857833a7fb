package dev.sluice.demo;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/** Where {@code ffmpeg} and {@code ffprobe} (which ships with it) are, found on PATH once at start-up. */
record FfmpegTools(Path ffmpeg, Path ffprobe) {

  /**
   * @param path the PATH to search (the process's own, or a test's)
   * @throws IllegalStateException in one line, saying what to install
   */
  static FfmpegTools onPath(String path) {
    Optional<Path> ffmpeg = find("ffmpeg", path);
    Optional<Path> ffprobe = find("ffprobe", path);
    if (ffmpeg.isEmpty() || ffprobe.isEmpty()) {
      throw new IllegalStateException("demo.engine=ffmpeg but "
          + (ffmpeg.isEmpty() ? "ffmpeg" : "ffprobe") + " is not on PATH: install ffmpeg "
          + "(apt-get install ffmpeg) or start with demo.engine=frames");
    }
    return new FfmpegTools(ffmpeg.get(), ffprobe.get());
  }

  private static Optional<Path> find(String binary, String path) {
    if (path == null) {
      return Optional.empty();
    }
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty() && Files.isExecutable(Path.of(dir, binary))) {
        return Optional.of(Path.of(dir, binary));
      }
    }
    return Optional.empty();
  }
}
