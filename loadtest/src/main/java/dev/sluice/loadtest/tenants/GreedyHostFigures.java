package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What one variant of {@code --scenario greedy-host} did for the 32 maintenance hosts; written to
 * {@code summary.json} under {@code greedyHost}.
 *
 * @param variant the variant's name
 * @param ignoredProperties variant properties the service said it did not know (then the variant
 *     did not run as described)
 * @param hosts each maintenance host, by {@code X-Host-Id}
 * @param jainIndex Jain's index over the hosts' {@code served / fairShare}
 * @param jainIndexServed Jain's index over the plain served counts (equal to {@code jainIndex} when
 *     every host asked for more than an equal share)
 * @param politeMinShareOfFair the lowest {@code served / fairShare} of a polite host
 * @param politeBelow90 polite hosts that got less than 90% of their fair share
 * @param politeQueueWaitMillis server-reported queue wait of the polite hosts' served jobs
 * @param greedyQueueWaitMillis the same for the greedy host
 * @param greedy429Tries tries of the greedy host answered 429
 * @param greedy429Requests requests of the greedy host that ended 429 after their retries
 * @param rescue the critical rescue job
 * @param targetMet Jain's index at least 0.95 and no polite host under 90% of its fair share
 */
record GreedyHostFigures(
    String variant,
    List<String> ignoredProperties,
    Map<String, Host> hosts,
    double jainIndex,
    double jainIndexServed,
    double politeMinShareOfFair,
    long politeBelow90,
    Percentiles politeQueueWaitMillis,
    Percentiles greedyQueueWaitMillis,
    long greedy429Tries,
    long greedy429Requests,
    Rescue rescue,
    boolean targetMet) {

  static final double TARGET_JAIN = 0.95;
  static final double TARGET_SHARE_OF_FAIR = 0.90;

  /**
   * One host.
   *
   * @param greedy the host that sends 10x
   * @param requests requests it sent (its demand)
   * @param served requests answered 200
   * @param fairShare its max-min fair share of everything the 32 hosts were served
   * @param shareOfFair {@code served / fairShare}
   * @param tries429 tries answered 429
   * @param tries504 tries answered 504
   */
  record Host(
      boolean greedy,
      long requests,
      long served,
      double fairShare,
      double shareOfFair,
      long tries429,
      long tries504) {}

  /**
   * The rescue job.
   *
   * @param requests requests sent
   * @param served answered 200
   * @param notServedTries tries answered anything but 200
   * @param reasons what its rejections said, by status and reason
   * @param latencyMillis of its 200s, from the intended send time
   * @param queueWaitMillis server-reported queue wait
   */
  record Rescue(
      long requests,
      long served,
      long notServedTries,
      Map<String, Long> reasons,
      Percentiles latencyMillis,
      Percentiles queueWaitMillis) {}

  static GreedyHostFigures of(
      String variant, List<String> ignored, RunSummary run, CallerTally tally) {
    Map<String, CallerTally.Counts> callers = tally.byCaller();
    Map<String, Long> demand = new LinkedHashMap<>();
    long served = 0;
    for (int i = 1; i <= GreedyHostTraffic.HOSTS; i++) {
      String host = GreedyHostTraffic.host(i);
      CallerTally.Counts c = callers.get(host);
      demand.put(host, c == null ? 0 : c.requests());
      served += c == null ? 0 : c.served();
    }
    Map<String, Double> fair = Fairness.maxMinShares(demand, (double) served);
    Map<String, Host> hosts = new LinkedHashMap<>();
    double[] normalized = new double[demand.size()];
    double[] plain = new double[demand.size()];
    double politeMin = Double.NaN;
    long below = 0;
    int i = 0;
    for (String host : demand.keySet()) {
      CallerTally.Counts c = callers.getOrDefault(host, empty());
      boolean greedy = host.equals(GreedyHostTraffic.GREEDY_HOST);
      double share = fair.get(host) == 0 ? 1.0 : c.served() / fair.get(host);
      hosts.put(
          host,
          new Host(
              greedy,
              c.requests(),
              c.served(),
              fair.get(host),
              share,
              c.tries("429"),
              c.tries("504")));
      normalized[i] = share;
      plain[i++] = c.served();
      if (!greedy) {
        politeMin = Double.isNaN(politeMin) ? share : Math.min(politeMin, share);
        below += share < TARGET_SHARE_OF_FAIR ? 1 : 0;
      }
    }
    double jain = Fairness.jain(normalized);
    CallerTally.Counts polite = tally.of(k ->
        k.startsWith(GreedyHostTraffic.HOST_PREFIX) && !k.equals(GreedyHostTraffic.GREEDY_HOST));
    CallerTally.Counts greedy = tally.of(GreedyHostTraffic.GREEDY_HOST::equals);
    CallerTally.Counts rescue = tally.of(GreedyHostTraffic.RESCUE_HOST::equals);
    return new GreedyHostFigures(
        variant,
        ignored,
        hosts,
        jain,
        Fairness.jain(plain),
        politeMin,
        below,
        polite.queuedMillis(),
        greedy.queuedMillis(),
        greedy.tries("429"),
        run.accounting()
            .outcomes()
            .getOrDefault(GreedyHostTraffic.GREEDY_STREAM, Map.of())
            .getOrDefault("429", 0L),
        new Rescue(
            rescue.requests(),
            rescue.served(),
            rescue.notServedTries(),
            rescue.reasons(),
            run.latencyMillis().get(GreedyHostTraffic.RESCUE_STREAM + " 200"),
            rescue.queuedMillis()),
        ignored.isEmpty() && jain >= TARGET_JAIN && below == 0);
  }

  private static CallerTally.Counts empty() {
    return new CallerTally.Counts(0, 0, Map.of(), Map.of(), null);
  }
}
