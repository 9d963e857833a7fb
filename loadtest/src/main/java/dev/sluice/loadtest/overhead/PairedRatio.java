package dev.sluice.loadtest.overhead;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * The ratio of two services' CPU per request, judged from paired rounds: each round measures both
 * within seconds of each other, so a swing of the machine moves both and cancels in their ratio,
 * where comparing two medians taken over the whole run keeps it. The estimate is the geometric mean
 * of the rounds' ratios; its 95% interval comes from a bootstrap over the rounds (10,000
 * resamples of the mean log ratio, seeded by the data, so the same rounds give the same interval).
 *
 * @param ratio the geometric mean of the rounds' ratios (NaN: no round measured both)
 * @param low the interval's lower end
 * @param high and its upper end
 * @param rounds how many rounds measured both
 */
record PairedRatio(double ratio, double low, double high, int rounds) {

  static final int RESAMPLES = 10_000;

  /** Nothing to judge. */
  static final PairedRatio NONE = new PairedRatio(Double.NaN, Double.NaN, Double.NaN, 0);

  /**
   * @param numerator each round's figure of the service judged
   * @param denominator the same rounds' figures of the one it is judged against; a round where
   *     either is not a positive number is left out
   */
  static PairedRatio of(double[] numerator, double[] denominator) {
    if (numerator.length != denominator.length) {
      throw new IllegalArgumentException(
          "paired rounds differ in number: " + numerator.length + " and " + denominator.length);
    }
    double[] logs = new double[numerator.length];
    int n = 0;
    for (int i = 0; i < numerator.length; i++) {
      double a = numerator[i];
      double b = denominator[i];
      if (a > 0 && b > 0 && Double.isFinite(a) && Double.isFinite(b)) {
        logs[n++] = Math.log(a / b);
      }
    }
    if (n == 0) {
      return NONE;
    }
    logs = Arrays.copyOf(logs, n);
    double estimate = Math.exp(mean(logs));
    if (n == 1) {
      return new PairedRatio(estimate, Double.NaN, Double.NaN, 1);
    }
    SplittableRandom random = new SplittableRandom(Arrays.hashCode(logs));
    double[] means = new double[RESAMPLES];
    for (int r = 0; r < RESAMPLES; r++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += logs[random.nextInt(n)];
      }
      means[r] = sum / n;
    }
    Arrays.sort(means);
    return new PairedRatio(
        estimate,
        Math.exp(means[(int) (0.025 * RESAMPLES)]),
        Math.exp(means[(int) (0.975 * RESAMPLES) - 1]),
        n);
  }

  /** Half the interval's width relative to the estimate: 0.02 is ±2% (NaN: no interval). */
  double halfWidth() {
    return (high - low) / 2 / ratio;
  }

  /** Whether the interval leaves {@code value} out: the two services can be told apart. */
  boolean excludes(double value) {
    return low > value || high < value;
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }
}
