package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.scenario.Scenario;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The traffic of {@code --scenario greedy-host}: 32 maintenance hosts, each its own
 * {@code X-Host-Id}, of which one sends ten times what each of the other 31 sends; the rescue job,
 * which sends its jobs into the same transcode queue marked {@code X-Priority: critical}; and the
 * history viewers of every scenario.
 *
 * <p>Why the rescue job goes to {@code /api/transcode} here and not to its own {@code /api/rescue}
 * lane: this scenario asks what the queue discipline does for a critical caller that shares the queue
 * with everyone else; on its own lane the question would not arise.
 */
final class GreedyHostTraffic {

  /** The header a fair queue keys on. */
  static final String HOST_HEADER = Scenario.HOST_HEADER;
  /** The header of the priority class. */
  static final String PRIORITY_HEADER = "X-Priority";

  static final int HOSTS = 32;
  /** How many times a polite host's rate the greedy host sends. */
  static final int GREEDY_FACTOR = 10;
  /** Every maintenance host's id starts so; the fairness figures are taken over them. */
  static final String HOST_PREFIX = "maintenance-host-";

  static final String GREEDY_HOST = host(1);
  static final String RESCUE_HOST = "video-rescue";

  /** Stream names: the polite hosts keep the name {@code transcode}, so the common figures apply. */
  static final String POLITE_STREAM = "transcode";

  static final String GREEDY_STREAM = "transcode-greedy";
  static final String RESCUE_STREAM = "rescue";

  private GreedyHostTraffic() {}

  /**
   * @param maintenanceRate transcode jobs per second of all 32 hosts together
   */
  static List<TrafficStream> streams(double maintenanceRate, int cpuMillis) {
    String job = "/api/transcode?cpuMillis=" + cpuMillis;
    double polite = maintenanceRate / (HOSTS - 1 + GREEDY_FACTOR);
    List<TrafficStream> streams = new ArrayList<>();
    streams.add(TrafficStream.constant(
        POLITE_STREAM,
        "POST",
        r -> job,
        HOSTS - 1,
        i -> Map.of(HOST_HEADER, host(i + 2)),
        polite * (HOSTS - 1)));
    streams.add(TrafficStream.constant(
        GREEDY_STREAM,
        "POST",
        r -> job,
        1,
        i -> Map.of(HOST_HEADER, GREEDY_HOST),
        polite * GREEDY_FACTOR));
    streams.add(TrafficStream.constant(
        RESCUE_STREAM,
        "POST",
        r -> job,
        1,
        i -> Map.of(HOST_HEADER, RESCUE_HOST, PRIORITY_HEADER, "critical"),
        Math.max(0.2, maintenanceRate / 40)));
    streams.addAll(Scenario.viewers());
    return List.copyOf(streams);
  }

  /** {@code maintenance-host-NN}, numbered from 1; host 1 is the greedy one. */
  static String host(int number) {
    return String.format(Locale.ROOT, "%s%02d", HOST_PREFIX, number);
  }
}
