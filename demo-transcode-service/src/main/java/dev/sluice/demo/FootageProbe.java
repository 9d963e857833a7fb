package dev.sluice.demo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * Asks {@code ffprobe} what a file holds before anything is transcoded, so bad footage is refused
 * with the reason (not a video, truncated, too long) and a good one's cost is known up front.
 */
final class FootageProbe {

  /** ffprobe reads headers only; a file it needs longer for is not footage we want. */
  private static final Duration PROBE_TIMEOUT = Duration.ofSeconds(10);

  private final Path ffprobe;
  private final ChildProcesses children;

  FootageProbe(Path ffprobe, ChildProcesses children) {
    this.ffprobe = ffprobe;
    this.children = children;
  }

  /**
   * @param folder the job's folder, for ffprobe's output
   * @throws JobProblem not a video (or no video stream), truncated
   */
  Footage probe(Path file, Path folder, BooleanSupplier wanted) throws IOException {
    Path out = folder.resolve(file.getFileName() + ".probe");
    Path err = folder.resolve(file.getFileName() + ".probe-errors");
    int exit = children.run(
        List.of(
            ffprobe.toString(),
            "-v",
            "error",
            "-select_streams",
            "v:0",
            "-show_entries",
            "format=duration:stream=width,height,avg_frame_rate",
            "-of",
            "default=noprint_wrappers=1",
            file.toString()),
        out,
        err,
        PROBE_TIMEOUT,
        wanted);
    if (exit != 0) {
      String errors = lastLine(err);
      // an mp4 starts with its ftyp box; ffmpeg writes the index (moov) at the end, so an upload
      // cut short starts like an mp4 and has no index, which ffprobe reports as it would for junk
      if (startsLikeMp4(file)) {
        throw JobProblem.truncated(
            "the footage is truncated (an mp4 whose index is missing): " + errors);
      }
      throw JobProblem.notAVideo("the body is not a video ffprobe can read: " + errors);
    }
    Map<String, String> fields = fields(out);
    int width = whole(fields.get("width"));
    int height = whole(fields.get("height"));
    if (width <= 0 || height <= 0) {
      throw JobProblem.notAVideo("the body has no video stream");
    }
    double duration = decimal(fields.get("duration"));
    if (!(duration > 0)) {
      throw JobProblem.truncated("the footage has no duration (truncated or empty)");
    }
    double frameRate = rate(fields.get("avg_frame_rate"));
    return new Footage(duration, width, height, frameRate > 0 ? frameRate : 25);
  }

  private static boolean startsLikeMp4(Path file) throws IOException {
    byte[] head = new byte[8];
    try (java.io.InputStream in = Files.newInputStream(file)) {
      return in.readNBytes(head, 0, 8) == 8
          && new String(head, 4, 4, StandardCharsets.ISO_8859_1).equals("ftyp");
    }
  }

  private static Map<String, String> fields(Path out) throws IOException {
    Map<String, String> fields = new HashMap<>();
    for (String line : Files.readAllLines(out, StandardCharsets.UTF_8)) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        fields.putIfAbsent(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return fields;
  }

  /**
   * The last line ffprobe or ffmpeg wrote to stderr: the one that names the problem, with the job
   * folder's path taken out (a client has no business knowing the server's file system).
   */
  static String lastLine(Path err) throws IOException {
    if (!Files.exists(err)) {
      return "";
    }
    List<String> lines = Files.readAllLines(err, StandardCharsets.UTF_8);
    for (int i = lines.size() - 1; i >= 0; i--) {
      if (!lines.get(i).isBlank()) {
        String line = lines.get(i).trim().replace(err.getParent() + java.io.File.separator, "");
        return line.length() > 200 ? line.substring(0, 200) + "..." : line;
      }
    }
    return "";
  }

  private static int whole(String text) {
    try {
      return text == null ? 0 : Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  private static double decimal(String text) {
    try {
      return text == null ? Double.NaN : Double.parseDouble(text.toLowerCase(Locale.ROOT));
    } catch (NumberFormatException e) {
      return Double.NaN; // "N/A"
    }
  }

  /** "25/1", "30000/1001", or "0/0" when unknown. */
  private static double rate(String text) {
    if (text == null) {
      return 0;
    }
    int slash = text.indexOf('/');
    if (slash < 0) {
      return decimal(text);
    }
    double num = decimal(text.substring(0, slash));
    double den = decimal(text.substring(slash + 1));
    return den > 0 ? num / den : 0;
  }
}
