package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.adaptive.AdaptiveRun;
import dev.sluice.loadtest.adaptive.JobMix;
import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.ingest.IngestRun;
import dev.sluice.loadtest.tenants.GreedyHostTraffic;
import dev.sluice.loadtest.tenants.PriorityTraffic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.function.DoubleUnaryOperator;

/**
 * The traffic of a run. The rate given on the command line is the offered rate of transcode jobs per
 * second; the background traffic (history browsing, rescue jobs) is sized from it.
 */
public enum Scenario {

  /**
   * The Monday maintenance window: 32 hosts push transcode jobs at twice the machine's capacity by
   * default, while viewers browse history (one of them greedy enough to hit its rate rule) and the
   * on-premise rescue job keeps sending its own jobs.
   */
  MONDAY_MAINTENANCE(2.0, 32),
  /** A normal day: half the capacity from 8 hosts, with the same background traffic. */
  STEADY(0.5, 8),
  /** A normal day with a burst: four times the steady rate in the middle fifth of the run. */
  SPIKE(0.5, 8),
  /**
   * One greedy maintenance host among 32 sends 10x what each other one sends, at twice the demo
   * limiter's capacity in all, beside the viewers and the critical rescue job ({@link
   * GreedyHostTraffic}).
   */
  GREEDY_HOST(2.0, GreedyHostTraffic.HOSTS),
  /**
   * Sheddable jobs at three times the demo limiter's capacity plus a trickle of critical ones
   * ({@link PriorityTraffic}).
   */
  PRIORITY(3.0, PriorityTraffic.SHEDDABLE_HOSTS),
  /**
   * Not a traffic of its own: compares limit strategies (fixed, cpu, latency, a Netflix peer) per
   * job mix ({@link JobMix}) at overloads of the capacity, see {@link AdaptiveRun}.
   */
  ADAPTIVE(2.0, JobMix.HOSTS),
  /**
   * Not open-loop traffic: 10,000 records into a 2,000/s rate rule, by a naive client and by Sluice's
   * paced client (see {@link IngestRun}); needs {@code --embedded}.
   */
  INGEST(0, 0);

  /** Viewers browsing history, each well inside the per-account rule of the default rules file. */
  static final int VIEWERS = 8;

  static final double VIEWER_RATE = 2.0;
  /** One account that pulls history faster than its rule (10/s) allows. */
  static final double GREEDY_RATE = 15.0;

  private final double capacityFactor;
  private final int hosts;

  Scenario(double capacityFactor, int hosts) {
    this.capacityFactor = capacityFactor;
    this.hosts = hosts;
  }

  /** The command-line id, e.g. {@code monday-maintenance}. */
  public String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  public static Scenario fromId(String id) {
    for (Scenario scenario : values()) {
      if (scenario.id().equals(id)) {
        return scenario;
      }
    }
    throw new IllegalArgumentException(
        "--scenario must be one of " + java.util.Arrays.stream(values()).map(Scenario::id)
            .collect(java.util.stream.Collectors.joining(", ")) + " but was '" + id + "'");
  }

  /**
   * The default offered transcode rate: this scenario's multiple of what the machine can compute,
   * {@code cores x 1000 / cpuMillis} jobs per second at 100 % CPU.
   */
  public double defaultRate(int cores, int cpuMillis) {
    if (this == GREEDY_HOST || this == PRIORITY) {
      // these two are about the order of a full queue: sized from the permits the demo gives its
      // transcode limiter on auto (max(1, round(0.7 x cores))), not from the cores
      return capacityFactor * Math.max(1, Math.round(0.7 * cores)) * 1000.0 / cpuMillis;
    }
    return capacityFactor * cores * 1000.0 / cpuMillis;
  }

  /** The streams of this scenario at the given offered transcode rate. */
  public List<TrafficStream> streams(double transcodeRate, int cpuMillis, Duration duration) {
    if (this == GREEDY_HOST) {
      return GreedyHostTraffic.streams(transcodeRate, cpuMillis);
    }
    if (this == PRIORITY) {
      return PriorityTraffic.streams(transcodeRate, cpuMillis);
    }
    double seconds = duration.toMillis() / 1000.0;
    DoubleUnaryOperator transcode =
        this == SPIKE
            ? t -> t >= 0.4 * seconds && t < 0.6 * seconds ? 4 * transcodeRate : transcodeRate
            : t -> transcodeRate;
    double transcodePeak = this == SPIKE ? 4 * transcodeRate : transcodeRate;
    String job = "?cpuMillis=" + cpuMillis;
    List<TrafficStream> streams = new ArrayList<>(List.of(
        new TrafficStream(
            "transcode",
            "POST",
            r -> "/api/transcode" + job,
            hosts,
            host -> maintenanceHost(String.format(Locale.ROOT, "maintenance-host-%02d", host + 1)),
            transcode,
            transcodePeak),
        TrafficStream.constant(
            "rescue",
            "POST",
            r -> "/api/rescue" + job,
            1,
            i -> account("video-rescue"),
            Math.max(0.2, transcodeRate / 40))));
    streams.addAll(viewers());
    return List.copyOf(streams);
  }

  /** The history viewers of every scenario: polite ones and one greedy one. */
  public static List<TrafficStream> viewers() {
    return List.of(
        TrafficStream.constant(
            "history",
            "GET",
            Scenario::historyPath,
            VIEWERS,
            i -> account("viewer-" + (i + 1)),
            VIEWERS * VIEWER_RATE),
        TrafficStream.constant(
            "history-greedy",
            "GET",
            Scenario::historyPath,
            1,
            i -> account("greedy-viewer"),
            GREEDY_RATE));
  }

  private static String historyPath(Random random) {
    return "/api/history/" + (1 + random.nextInt(100_000));
  }

  /** A host is its own account for the rate rules and its own key for the fair queue. */
  private static Map<String, String> maintenanceHost(String id) {
    return Map.of("X-Account-Id", id, GreedyHostTraffic.HOST_HEADER, id);
  }

  private static Map<String, String> account(String id) {
    return Map.of("X-Account-Id", id);
  }
}
