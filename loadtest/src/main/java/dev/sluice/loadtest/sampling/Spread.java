package dev.sluice.loadtest.sampling;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Mean and spread of a series of readings (e.g. CPU percent once a second).
 *
 * @param n readings (NaN ones left out)
 * @param mean arithmetic mean
 * @param stddev population standard deviation
 * @param p10 10th percentile (nearest rank)
 * @param p90 90th percentile (nearest rank)
 */
public record Spread(int n, double mean, double stddev, double p10, double p90) {

  public static Spread of(List<Double> readings) {
    List<Double> values = new ArrayList<>();
    readings.stream().filter(v -> v != null && !Double.isNaN(v)).forEach(values::add);
    if (values.isEmpty()) {
      return new Spread(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
    }
    Collections.sort(values);
    double mean = values.stream().mapToDouble(Double::doubleValue).average().orElseThrow();
    double squares = values.stream().mapToDouble(v -> (v - mean) * (v - mean)).sum();
    return new Spread(
        values.size(),
        mean,
        Math.sqrt(squares / values.size()),
        rank(values, 0.10),
        rank(values, 0.90));
  }

  private static double rank(List<Double> sorted, double quantile) {
    int index = (int) Math.ceil(quantile * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(sorted.size() - 1, index)));
  }
}
