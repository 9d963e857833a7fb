package dev.sluice.loadtest.tenants;

import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import java.util.List;
import java.util.Map;

/**
 * What one variant of {@code --scenario priority} did for the critical and the sheddable jobs;
 * written to {@code summary.json} under {@code priority}.
 *
 * @param variant the variant's name
 * @param ignoredProperties variant properties the service said it did not know
 * @param critical the rescue job's {@code X-Priority: critical} jobs
 * @param sheddable the batch hosts' {@code X-Priority: sheddable} jobs
 * @param criticalWaitPerServiceTime critical queue wait p99 / the unloaded service time
 * @param targetMet no critical try answered anything but 200, every critical job served, and some
 *     sheddable ones shed
 */
record PriorityFigures(
    String variant,
    List<String> ignoredProperties,
    Kind critical,
    Kind sheddable,
    double criticalWaitPerServiceTime,
    boolean targetMet) {

  /**
   * One class of jobs.
   *
   * @param requests requests sent
   * @param served answered 200
   * @param shed requests not served in the end
   * @param tries429 tries answered 429 (queue full, displaced, key cap)
   * @param tries504 tries answered 504 (timed out in the queue)
   * @param otherNotServedTries tries answered anything else but 200
   * @param reasons what the rejections said, by status and reason
   * @param queueWaitMillis server-reported queue wait of the served jobs
   * @param latencyMillis of the 200s, from the intended send time
   */
  record Kind(
      long requests,
      long served,
      long shed,
      long tries429,
      long tries504,
      long otherNotServedTries,
      Map<String, Long> reasons,
      Percentiles queueWaitMillis,
      Percentiles latencyMillis) {

    static Kind of(CallerTally.Counts c, Percentiles latency) {
      long other = c.notServedTries() - c.tries("429") - c.tries("504");
      return new Kind(
          c.requests(),
          c.served(),
          c.requests() - c.served(),
          c.tries("429"),
          c.tries("504"),
          other,
          c.reasons(),
          c.queuedMillis(),
          latency);
    }
  }

  static PriorityFigures of(
      String variant, List<String> ignored, RunSummary run, CallerTally tally) {
    CallerTally.Counts critical = tally.of(GreedyHostTraffic.RESCUE_HOST::equals);
    CallerTally.Counts sheddable = tally.of(k -> !k.equals(GreedyHostTraffic.RESCUE_HOST));
    Kind c = Kind.of(critical, run.latencyMillis().get(PriorityTraffic.CRITICAL_STREAM + " 200"));
    Kind s = Kind.of(sheddable, run.latencyMillis().get(PriorityTraffic.SHEDDABLE_STREAM + " 200"));
    boolean met = ignored.isEmpty()
        && critical.requests() > 0
        && critical.notServedTries() == 0
        && c.served() == c.requests()
        && s.shed() > 0;
    return new PriorityFigures(
        variant, ignored, c, s, c.queueWaitMillis().p99() / run.unloadedServiceMillis(), met);
  }
}
