package dev.sluice.concurrency.limit;

/**
 * What a {@link LimitSource} decides from, for dashboards and gauges: the limit, the controller's
 * real-valued output behind it, its bounds, and the signal it holds against a target. Fields that
 * do not apply to a strategy are {@link Double#NaN}.
 *
 * @param strategy {@code fixed}, {@code cpu}, {@code latency}, or a custom source's name
 * @param limit the integer limit the fast path reads now
 * @param exactLimit the controller's real-valued limit; the integer limit is dithered around it
 *     tick by tick, so the mean admitted concurrency can be fractional (1.4 jobs on 2 cores). For
 *     a fixed limit, the limit
 * @param minLimit the lower bound ({@code min-concurrency}); the limit for a fixed source
 * @param maxLimit the ceiling ({@code max-concurrency}); the limit for a fixed source
 * @param cpu cpu: the utilisation measured on the last tick, 0 to 1
 * @param targetCpu cpu: the utilisation it holds, 0 to 1
 * @param serviceMillis latency: mean service time of the last full window, in milliseconds
 * @param targetServiceMillis latency: the service time above which it shrinks (no-load baseline x
 *     tolerance), in milliseconds
 */
public record LimitState(
    String strategy,
    int limit,
    double exactLimit,
    int minLimit,
    int maxLimit,
    double cpu,
    double targetCpu,
    double serviceMillis,
    double targetServiceMillis) {

  /** The state of a limit that changes only when told to. */
  public static LimitState fixed(int limit) {
    return new LimitState(
        "fixed", limit, limit, limit, limit, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
  }

  /** Whether the limit adapts by itself (anything but {@code fixed}). */
  public boolean adaptive() {
    return !"fixed".equals(strategy);
  }
}
