package dev.sluice.loadtest.tenants;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How evenly a shared resource went to its users: Jain's fairness index and the max-min fair share.
 *
 * <p>Jain, Chiu and Hawe (1984): {@code J = (sum x)^2 / (n * sum x^2)}, 1 when every user got the same,
 * {@code 1/n} when one user got everything. It is taken over {@code x_i = served_i / fairShare_i}, so a
 * user that asked for less than an equal share and got all of it counts as treated fairly; when every
 * user is backlogged (asks for more than an equal share) the fair shares are equal and this is the
 * plain index over the served counts.
 */
final class Fairness {

  private Fairness() {}

  /** Jain's index of the values; 1 for no values or all zero (nobody was treated worse). */
  static double jain(double[] values) {
    double sum = 0;
    double squares = 0;
    for (double v : values) {
      if (v < 0 || Double.isNaN(v)) {
        throw new IllegalArgumentException("a share must be >= 0 but was " + v);
      }
      sum += v;
      squares += v * v;
    }
    return squares == 0 ? 1.0 : sum * sum / (values.length * squares);
  }

  /**
   * Max-min fair shares of {@code capacity} among users who asked for {@code demand} (water-filling):
   * every user gets an equal part, a user who asked for less gets what it asked for, and what it
   * leaves is shared among the others the same way. Keys keep the demand map's order.
   */
  static Map<String, Double> maxMinShares(Map<String, Long> demand, double capacity) {
    if (capacity < 0) {
      throw new IllegalArgumentException("capacity must be >= 0 but was " + capacity);
    }
    String[] keys = demand.keySet().toArray(String[]::new);
    Integer[] byDemand = new Integer[keys.length];
    for (int i = 0; i < keys.length; i++) {
      byDemand[i] = i;
    }
    Arrays.sort(byDemand, (a, b) -> Long.compare(demand.get(keys[a]), demand.get(keys[b])));
    double[] share = new double[keys.length];
    double left = capacity;
    for (int i = 0; i < byDemand.length; i++) {
      int users = byDemand.length - i;
      double equal = left / users;
      long asked = demand.get(keys[byDemand[i]]);
      double given = Math.min((double) asked, equal);
      share[byDemand[i]] = given;
      left -= given;
    }
    Map<String, Double> shares = new LinkedHashMap<>();
    for (int i = 0; i < keys.length; i++) {
      shares.put(keys[i], share[i]);
    }
    return shares;
  }
}
