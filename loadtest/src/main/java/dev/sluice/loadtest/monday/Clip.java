package dev.sluice.loadtest.monday;

import java.util.List;
import java.util.Locale;

/**
 * One clip of the replay's library: a test pattern {@code seconds} long at {@code height} lines
 * (16:9), H.264 in mp4, as ffmpeg's {@code lavfi} source makes it.
 *
 * @param seconds how long it lasts
 * @param height its lines (360, 720); the width follows at 16:9
 */
public record Clip(int seconds, int height) {

  /** The header the replay declares a clip's cost in, before the upload (the demo checks it). */
  public static final String COST_HEADER = "X-Footage-Cost";

  /** Seconds x height of one cost unit: 10 s of 360p footage. */
  static final int UNIT = 3600;

  /** @throws IllegalArgumentException a clip of no length or no lines */
  public Clip {
    if (seconds < 1 || height < 2 || height % 2 != 0) {
      throw new IllegalArgumentException(
          "a clip needs seconds >= 1 and an even height >= 2 but was " + seconds + " s, " + height
              + "p");
    }
  }

  /** 16:9 and even, as libx264's 4:2:0 needs. */
  public int width() {
    return (height * 16 / 9 + 1) / 2 * 2;
  }

  /** The file it is cached as, e.g. {@code testsrc2-10s-360p.mp4}. */
  public String fileName() {
    return String.format(Locale.ROOT, "testsrc2-%ds-%dp.mp4", seconds, height);
  }

  /**
   * What the client declares in {@link #COST_HEADER}: {@code ceil(seconds x height / 3600)}, at
   * least 1, so 10 s of 360p costs 1 and a minute of 720p 12. The demo computes the same from its
   * probe of the upload and refuses a declaration far from it.
   */
  public int costUnits() {
    return Math.max(1, (int) Math.ceil((double) seconds * height / UNIT));
  }

  /**
   * The renditions a maintenance host asks of it: the demo's heights (240, 360) below its own, or
   * 240 for a clip no taller than that.
   */
  public List<Integer> renditions() {
    List<Integer> below =
        java.util.stream.Stream.of(240, 360).filter(h -> h < height).toList();
    return below.isEmpty() ? List.of(240) : below;
  }

  @Override
  public String toString() {
    return seconds + " s " + height + "p";
  }
}
