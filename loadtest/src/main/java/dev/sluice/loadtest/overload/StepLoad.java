package dev.sluice.loadtest.overload;

/**
 * The step test's offered load: the base rate, then {@code factor} times it, then the base rate
 * again, each for about a third of the run (the steps on whole seconds, so the once-a-second samples
 * fall on one side of them).
 *
 * @param baseRate jobs per second before and after the high phase (1x the capacity)
 * @param factor the high phase's multiple of it
 * @param upAt when the load steps up, seconds into the run
 * @param downAt when it steps back down
 * @param end when the arrivals end
 */
public record StepLoad(double baseRate, double factor, double upAt, double downAt, double end) {

  /** The step: 1x to 10x and back. */
  static final double FACTOR = 10;

  static StepLoad thirds(double baseRate, long seconds) {
    return new StepLoad(
        baseRate, FACTOR, Math.round(seconds / 3.0), Math.round(2 * seconds / 3.0), seconds);
  }

  double rate(double second) {
    return second >= upAt && second < downAt ? factor * baseRate : baseRate;
  }

  double peakRate() {
    return factor * baseRate;
  }
}
