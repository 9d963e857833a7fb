package dev.sluice.ratelimit;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;

/**
 * Divides a bucket's quota among the proxies that report it by max-min fairness (water filling):
 * a proxy that asks for less than an equal share gets what it asks for, and what it leaves is
 * divided the same way among the others. When the demands together are below the quota, the rest
 * is spread evenly on top, so every proxy has room to grow until its next report and the shares
 * always add up to the quota.
 *
 * <p>Shares are whole requests (a strategy carries integers): the real-valued division is rounded
 * by largest remainder, so the shares sum to exactly the quota. The result depends only on the
 * demands and their order, so replicas that read the same demands in the same order agree.
 */
final class FairShare {

  private FairShare() {}

  /**
   * The share of each demand, in the order given.
   *
   * @param quota requests per period, 0 or more
   * @param demands each proxy's demand in requests per the same period, 0 or more
   * @return one share per demand, together exactly {@code quota} (none when there is no demand)
   */
  static long[] divide(long quota, double[] demands) {
    int n = demands.length;
    long[] shares = new long[n];
    if (n == 0) {
      return shares;
    }
    double[] exact = new double[n];
    Integer[] byDemand = IntStream.range(0, n).boxed().toArray(Integer[]::new);
    Arrays.sort(byDemand, Comparator.comparingDouble(i -> demands[i]));
    double remaining = quota;
    int left = n;
    for (int i : byDemand) {
      double fair = remaining / left;
      double d = Double.isFinite(demands[i]) ? Math.max(0, demands[i]) : fair;
      exact[i] = Math.min(d, fair);
      remaining -= exact[i];
      left--;
    }
    if (remaining > 0) {
      double extra = remaining / n;
      for (int i = 0; i < n; i++) {
        exact[i] += extra;
      }
    }
    long given = 0;
    for (int i = 0; i < n; i++) {
      shares[i] = Math.min(quota, (long) Math.floor(exact[i]));
      given += shares[i];
    }
    // largest remainder: the requests the floors dropped go to the shares they were cut most from
    Integer[] byRemainder = IntStream.range(0, n).boxed().toArray(Integer[]::new);
    Arrays.sort(byRemainder, Comparator.comparingDouble((Integer i) -> shares[i] - exact[i]));
    for (int k = 0; given < quota; k = (k + 1) % n) {
      shares[byRemainder[k]]++;
      given++;
    }
    return shares;
  }
}
