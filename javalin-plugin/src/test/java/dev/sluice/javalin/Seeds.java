package dev.sluice.javalin;

/**
 * The seed of a randomized (property or stress) test: {@code -Dsluice.test.seed=N} pins it, to
 * replay a failure whose message printed it; otherwise a fresh one per run.
 */
final class Seeds {

  private Seeds() {}

  static long seed() {
    String pinned = System.getProperty("sluice.test.seed");
    return pinned == null || pinned.isBlank() ? System.nanoTime() : Long.parseLong(pinned.trim());
  }
}
