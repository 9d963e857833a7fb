package dev.sluice.loadtest.scenario;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.engine.Workload;
import java.time.Duration;
import java.util.List;

/**
 * An open-loop traffic sized from one number, the offered transcode rate: the scenarios of this
 * package, and those of other experiments that send their traffic through a {@link LoadRun}.
 */
public interface Traffic {

  /** The scenario's name in the summary, e.g. {@code monday-maintenance}. */
  String id();

  /** The offered transcode jobs per second when {@code --rate} is not given. */
  double defaultRate(int cores, int cpuMillis);

  /** The streams at the given offered transcode rate. */
  List<TrafficStream> streams(double transcodeRate, int cpuMillis, Duration duration);

  /** This traffic at the command line's rate, job size and retries. */
  default Workload workload(Options options) {
    int cpuMillis = options.cpuMillis();
    return new Workload(
        id(),
        cpuMillis,
        "/api/transcode?cpuMillis=" + cpuMillis,
        cores -> options.rate().orElseGet(() -> defaultRate(cores, cpuMillis)),
        (rate, duration) -> streams(rate, cpuMillis, duration),
        options.maxAttempts());
  }
}
