package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.Experiment;
import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.Door;
import dev.sluice.loadtest.engine.TrafficStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.DoubleUnaryOperator;

/**
 * The open-loop scenarios of the Monday maintenance story, each run against one service (or, with
 * {@code --ab}, against an embedded one with Sluice off and then on; see {@link ScenarioRun}). The
 * rate given on the command line is the offered rate of transcode jobs per second; the background
 * traffic (history browsing, rescue jobs) is sized from it.
 */
public enum Scenario implements Traffic, Experiment {

  /**
   * The Monday maintenance window: 32 hosts push transcode jobs at twice the machine's capacity by
   * default, while viewers browse history (one of them greedy enough to hit its rate rule) and the
   * on-premise rescue job keeps sending its own jobs.
   */
  MONDAY_MAINTENANCE(2.0, 32),
  /** A normal day: half the capacity from 8 hosts, with the same background traffic. */
  STEADY(0.5, 8),
  /** A normal day with a burst: four times the steady rate in the middle fifth of the run. */
  SPIKE(0.5, 8);

  /**
   * The header a fair queue keys on: each maintenance host sends its own id in it. (Beside
   * {@code X-Account-Id}, which the rate rules read.)
   */
  public static final String HOST_HEADER = "X-Host-Id";

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
  @Override
  public String id() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /**
   * {@code --ab} compares Sluice off and on, and {@code --door} sends the transcode jobs through the
   * demo's gRPC door, which only these scenarios do.
   */
  @Override
  public Set<String> ownOptions() {
    return Set.of("--ab", "--door", "--grpc-port");
  }

  @Override
  public void check(Options options) {
    if (options.ab() && !options.embedded()) {
      throw new IllegalArgumentException("--ab starts the services itself, so it needs --embedded");
    }
    if (options.grpcPort() != 0 && options.door() != Door.GRPC) {
      throw new IllegalArgumentException("--grpc-port is the port of --door grpc");
    }
    if (options.door() == Door.GRPC && !options.embedded() && options.grpcPort() == 0) {
      throw new IllegalArgumentException(
          "--door grpc with --target needs --grpc-port N: the port of the service's gRPC door"
              + " (demo.grpc.port)");
    }
  }

  @Override
  public Path run(Options options) throws Exception {
    return ScenarioRun.run(this, options);
  }

  /**
   * The default offered transcode rate: this scenario's multiple of what the machine can compute,
   * {@code cores x 1000 / cpuMillis} jobs per second at 100 % CPU.
   */
  @Override
  public double defaultRate(int cores, int cpuMillis) {
    return capacityFactor * cores * 1000.0 / cpuMillis;
  }

  /** The streams of this scenario at the given offered transcode rate. */
  @Override
  public List<TrafficStream> streams(double transcodeRate, int cpuMillis, Duration duration) {
    double seconds = duration.toMillis() / 1000.0;
    DoubleUnaryOperator transcode = this == SPIKE
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

  /** The history viewers of every scenario (and of greedy-host): polite ones and one greedy one. */
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
    return Map.of("X-Account-Id", id, HOST_HEADER, id);
  }

  private static Map<String, String> account(String id) {
    return Map.of("X-Account-Id", id);
  }
}
