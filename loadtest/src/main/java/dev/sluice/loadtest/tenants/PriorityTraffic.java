package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.engine.TrafficStream;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The traffic of {@code --scenario priority}: batch hosts send {@code X-Priority: sheddable} transcode
 * jobs at three times what the limiter serves, and the rescue job a trickle of
 * {@code X-Priority: critical} ones into the same queue. What should happen: every critical job is
 * served, after a wait near one service time, while the sheddable ones are shed.
 */
final class PriorityTraffic {

  static final int SHEDDABLE_HOSTS = 8;
  /** The critical trickle as a share of the sheddable rate (3x capacity): a tenth of capacity. */
  static final double CRITICAL_SHARE = 1.0 / 30;

  static final String SHEDDABLE_STREAM = "sheddable";
  static final String CRITICAL_STREAM = "critical";

  private PriorityTraffic() {}

  /**
   * @param sheddableRate sheddable transcode jobs per second of all batch hosts together
   */
  static List<TrafficStream> streams(double sheddableRate, int cpuMillis) {
    String job = "/api/transcode?cpuMillis=" + cpuMillis;
    return List.of(
        TrafficStream.constant(
            SHEDDABLE_STREAM,
            "POST",
            r -> job,
            SHEDDABLE_HOSTS,
            i -> Map.of(
                GreedyHostTraffic.HOST_HEADER,
                String.format(Locale.ROOT, "batch-host-%02d", i + 1),
                GreedyHostTraffic.PRIORITY_HEADER,
                "sheddable"),
            sheddableRate),
        TrafficStream.constant(
            CRITICAL_STREAM,
            "POST",
            r -> job,
            1,
            i -> Map.of(
                GreedyHostTraffic.HOST_HEADER,
                GreedyHostTraffic.RESCUE_HOST,
                GreedyHostTraffic.PRIORITY_HEADER,
                "critical"),
            Math.max(0.2, sheddableRate * CRITICAL_SHARE)));
  }
}
