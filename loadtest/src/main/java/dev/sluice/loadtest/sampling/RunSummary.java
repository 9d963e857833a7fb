package dev.sluice.loadtest.sampling;

import dev.sluice.loadtest.engine.Accounting;
import java.util.List;
import java.util.Map;

/**
 * Everything one run measured; written to {@code summary.json} and drawn in the report.
 *
 * @param label e.g. "sluice on"
 * @param scenario scenario id
 * @param target the service's URL
 * @param seed random seed
 * @param durationSeconds how long arrivals were sent
 * @param offeredTranscodePerSecond offered transcode jobs per second
 * @param cpuMillis CPU per job
 * @param serverCores cores the service reported
 * @param unloadedServiceMillis service time of a job on the idle service (median of a few)
 * @param accounting where every request went (verified)
 * @param latencyMillis latency from the intended send time, by "stream outcome"
 * @param serviceMillis server-reported service time of admitted jobs, by stream
 * @param queuedMillis server-reported queue wait of admitted jobs, by stream
 * @param cpu process and system CPU over the run
 * @param samples the server's state once a second
 * @param attemptsPerSecond tries answered per second, by status
 */
public record RunSummary(
    String label,
    String scenario,
    String target,
    long seed,
    long durationSeconds,
    double offeredTranscodePerSecond,
    int cpuMillis,
    int serverCores,
    double unloadedServiceMillis,
    Accounting accounting,
    Map<String, Percentiles> latencyMillis,
    Map<String, Percentiles> serviceMillis,
    Map<String, Percentiles> queuedMillis,
    Cpu cpu,
    List<ServerSample> samples,
    Map<String, long[]> attemptsPerSecond) {

  /**
   * CPU percent of the whole machine while arrivals were sent.
   *
   * @param processMean the service process, mean of the samples
   * @param processMax the service process, highest sample
   * @param systemMean the whole machine (other work on it included)
   */
  public record Cpu(double processMean, double processMax, double systemMean) {

    public static Cpu of(List<ServerSample> samples, double untilSecond) {
      double sum = 0;
      double max = Double.NaN;
      double systemSum = 0;
      int n = 0;
      int systemN = 0;
      for (ServerSample s : samples) {
        // the first sample reads the JVM's load since start-up, not this run; skip it
        if (s.second() < 1 || s.second() > untilSecond) {
          continue;
        }
        if (!Double.isNaN(s.processCpuPercent())) {
          sum += s.processCpuPercent();
          max = Double.isNaN(max) ? s.processCpuPercent() : Math.max(max, s.processCpuPercent());
          n++;
        }
        if (!Double.isNaN(s.systemCpuPercent())) {
          systemSum += s.systemCpuPercent();
          systemN++;
        }
      }
      return new Cpu(
          n == 0 ? Double.NaN : sum / n, max, systemN == 0 ? Double.NaN : systemSum / systemN);
    }
  }
}
