package dev.sluice.testing;

/**
 * The seed of a randomized test (tagged {@code property} or {@code stress}). A fresh one each run,
 * so runs explore; every such test prints its seed when it fails, and {@code
 * -Dtest.seed=N} (e.g. {@code mvn verify -Dtest.seed=42}) replays that run.
 */
public final class Seeds {

  /** The system property that pins the seed (not under {@code sluice.}: strict mode owns those). */
  public static final String PROPERTY = "test.seed";

  private Seeds() {}

  /** The pinned seed, or a fresh one. */
  public static long seed() {
    String pinned = System.getProperty(PROPERTY);
    if (pinned == null || pinned.isBlank()) {
      return System.nanoTime() * 0x9E3779B97F4A7C15L; // spread: nanoTime's low bits move slowly
    }
    try {
      return Long.parseLong(pinned.trim());
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "-D" + PROPERTY + " must be a whole number but was '" + pinned + "'", e);
    }
  }
}
