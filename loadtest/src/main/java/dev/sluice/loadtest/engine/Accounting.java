package dev.sluice.loadtest.engine;

import java.util.Map;

/**
 * Where every request of a run went. A request (an arrival of the plan) ends in exactly one outcome:
 * its final HTTP status ("200", "429", "504", ...), {@code io-error}, or {@code unfinished} when the
 * run ended before it did; each try of it (attempt) ends in one attempt status or is abandoned.
 *
 * @param sent requests sent, by stream
 * @param outcomes final outcome counts, by stream then outcome
 * @param attempts tries sent, first tries and retries together
 * @param retries tries after the first
 * @param gaveUp requests that ended in a retryable status after the last allowed try
 * @param attemptStatuses every try's status, by status
 * @param abandonedAttempts tries still open when the run ended
 */
public record Accounting(
    Map<String, Long> sent,
    Map<String, Map<String, Long>> outcomes,
    long attempts,
    long retries,
    long gaveUp,
    Map<String, Long> attemptStatuses,
    long abandonedAttempts) {

  public static final String IO_ERROR = "io-error";
  public static final String UNFINISHED = "unfinished";

  public long totalSent() {
    return sent.values().stream().mapToLong(Long::longValue).sum();
  }

  /** Outcome counts over all streams. */
  public long total(String outcome) {
    return outcomes.values().stream()
        .mapToLong(m -> m.getOrDefault(outcome, 0L))
        .sum();
  }

  /**
   * Checks that every request and every try is counted exactly once.
   *
   * @throws IllegalStateException naming the first sum that does not add up
   */
  public Accounting verify() {
    for (Map.Entry<String, Long> stream : sent.entrySet()) {
      long ended = outcomes.getOrDefault(stream.getKey(), Map.of()).values().stream()
          .mapToLong(Long::longValue)
          .sum();
      if (ended != stream.getValue()) {
        throw new IllegalStateException("stream " + stream.getKey() + ": sent " + stream.getValue()
            + " but " + ended + " outcomes " + outcomes.get(stream.getKey()));
      }
    }
    for (String stream : outcomes.keySet()) {
      if (!sent.containsKey(stream)) {
        throw new IllegalStateException("outcomes for stream " + stream + " that sent nothing");
      }
    }
    if (attempts != totalSent() + retries) {
      throw new IllegalStateException(
          "attempts " + attempts + " != sent " + totalSent() + " + retries " + retries);
    }
    long answered = attemptStatuses.values().stream().mapToLong(Long::longValue).sum();
    if (answered + abandonedAttempts != attempts) {
      throw new IllegalStateException("attempt statuses " + answered + " + abandoned "
          + abandonedAttempts + " != attempts " + attempts);
    }
    return this;
  }
}
