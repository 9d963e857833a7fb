package dev.sluice.loadtest.soak;

import java.util.List;

/**
 * The trend of one quantity sampled over a soak: the least-squares slope, what it adds up to over
 * the run, and a verdict. A slope alone says little (heap moves by megabytes between two GCs), so
 * the verdict compares the rise over the whole run with a tolerance: the larger of an absolute
 * floor (what the quantity jitters by at rest) and a fraction of its mean.
 *
 * @param name what was sampled, e.g. {@code heap after GC (node 1)}
 * @param unit its unit, e.g. {@code MiB}
 * @param samples how many points the slope rests on
 * @param slopePerMinute least-squares slope, in {@code unit} per minute
 * @param rise the slope times the sampled span: how much it grew over the run
 * @param tolerance how much rise still counts as flat
 * @param verdict {@link #FLAT}, {@link #RISING}, {@link #FALLING} or {@link #TOO_FEW}
 */
public record Trend(
    String name,
    String unit,
    int samples,
    double slopePerMinute,
    double rise,
    double tolerance,
    String verdict) {

  public static final String FLAT = "flat";
  public static final String RISING = "rising";
  public static final String FALLING = "falling";
  public static final String TOO_FEW = "too few samples";
  /** Fewer points than this give no verdict: two points always make a line. */
  static final int MIN_SAMPLES = 3;

  /** One sample: seconds since the start, and the value. */
  public record Point(double seconds, double value) {}

  /**
   * The trend of {@code points}.
   *
   * @param floor the absolute tolerance (at rest the quantity moves by this much)
   * @param fraction the relative tolerance, of the mean (e.g. 0.05)
   * @throws IllegalArgumentException for a negative floor or fraction, naming it
   */
  public static Trend of(
      String name, String unit, List<Point> points, double floor, double fraction) {
    if (floor < 0 || fraction < 0) {
      throw new IllegalArgumentException("the tolerance of '" + name + "' must not be negative: "
          + "floor " + floor + ", fraction " + fraction);
    }
    int n = points.size();
    if (n < MIN_SAMPLES) {
      return new Trend(name, unit, n, 0, 0, floor, TOO_FEW);
    }
    double meanX = 0;
    double meanY = 0;
    for (Point p : points) {
      meanX += p.seconds();
      meanY += p.value();
    }
    meanX /= n;
    meanY /= n;
    double covariance = 0;
    double variance = 0;
    for (Point p : points) {
      covariance += (p.seconds() - meanX) * (p.value() - meanY);
      variance += (p.seconds() - meanX) * (p.seconds() - meanX);
    }
    if (variance == 0) {
      return new Trend(name, unit, n, 0, 0, floor, TOO_FEW); // all at one instant
    }
    double perSecond = covariance / variance;
    double span = points.get(n - 1).seconds() - points.get(0).seconds();
    double rise = perSecond * span;
    double tolerance = Math.max(floor, fraction * Math.abs(meanY));
    String verdict = rise > tolerance ? RISING : rise < -tolerance ? FALLING : FLAT;
    return new Trend(name, unit, n, perSecond * 60, rise, tolerance, verdict);
  }

  /** Whether this trend is what a leak looks like. */
  public boolean rising() {
    return RISING.equals(verdict);
  }
}
