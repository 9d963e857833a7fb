package dev.sluice.demo;

import dev.sluice.time.DurationText;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Set;

/**
 * The {@code demo.ffmpeg.*} keys, checked when the service starts with {@code demo.engine=ffmpeg}.
 *
 * @param threads ffmpeg's {@code -threads} for decoder and encoder: how many cores one job may keep busy
 * @param maxBytes largest upload; a larger one is 413 before the limiter when its length is declared, while reading otherwise
 * @param maxSeconds longest footage (probed); longer is 422
 * @param timeout a transcode still running after this is ended and answered 503: no request hangs on a stuck child
 * @param preset libx264's speed/size trade-off
 * @param tempDir where each job's upload and rendition live while it runs (a folder per job, removed after)
 * @param cost the header a client declares its footage's cost in, checked against the probe
 */
record FfmpegSettings(
    int threads,
    long maxBytes,
    int maxSeconds,
    Duration timeout,
    String preset,
    Path tempDir,
    DeclaredCost cost) {

  static final String THREADS = "demo.ffmpeg.threads";
  static final String MAX_BYTES = "demo.ffmpeg.max-bytes";
  static final String MAX_SECONDS = "demo.ffmpeg.max-seconds";
  static final String TIMEOUT = "demo.ffmpeg.timeout";
  static final String PRESET = "demo.ffmpeg.preset";
  static final String TEMP_DIR = "demo.ffmpeg.temp-dir";
  static final String COST_HEADER = "demo.ffmpeg.cost-header";

  private static final Set<String> PRESETS = Set.of(
      "ultrafast",
      "superfast",
      "veryfast",
      "faster",
      "fast",
      "medium",
      "slow",
      "slower",
      "veryslow");

  /** @throws IllegalArgumentException naming the key and the value */
  static FfmpegSettings from(DemoSettings settings) {
    int threads = settings.integer(THREADS, 1, 64);
    long maxBytes = settings.integer(MAX_BYTES, 1, Integer.MAX_VALUE);
    int maxSeconds = settings.integer(MAX_SECONDS, 1, 86_400);
    String timeoutText = settings.get(TIMEOUT).orElse("120s");
    Duration timeout;
    try {
      timeout = DurationText.parse(timeoutText);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(TIMEOUT + " must be a duration (" + DurationText.FORMS
          + ") but was '" + timeoutText + "'");
    }
    if (timeout.isZero() || timeout.isNegative()) {
      throw new IllegalArgumentException(
          TIMEOUT + " must be positive but was '" + timeoutText + "'");
    }
    String preset = settings.get(PRESET).orElse("veryfast").trim().toLowerCase(Locale.ROOT);
    if (!PRESETS.contains(preset)) {
      throw new IllegalArgumentException(PRESET + " must be one of libx264's presets "
          + new java.util.TreeSet<>(PRESETS) + " but was '" + preset + "'");
    }
    Path tempDir = settings
        .get(TEMP_DIR)
        .map(Path::of)
        .orElse(Path.of(System.getProperty("java.io.tmpdir"), "sluice-transcode"));
    String costHeader = settings.get(COST_HEADER).orElse("X-Footage-Cost").trim();
    if (!costHeader.isEmpty() && !costHeader.matches("[A-Za-z0-9!#$%&'*+.^_`|~-]+")) {
      throw new IllegalArgumentException(COST_HEADER
          + " must be an HTTP header name (or empty: none)" + " but was '" + costHeader + "'");
    }
    return new FfmpegSettings(
        threads, maxBytes, maxSeconds, timeout, preset, tempDir, new DeclaredCost(costHeader));
  }
}
