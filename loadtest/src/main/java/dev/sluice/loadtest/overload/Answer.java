package dev.sluice.loadtest.overload;

/**
 * One request of a run and what it got (each is tried once), in seconds since the run started.
 *
 * @param size the job's size ({@code short} or {@code long}: its stream)
 * @param sentAt when it was meant to be sent
 * @param answeredAt when its answer arrived
 * @param status the HTTP status, or {@link #IO_ERROR}
 * @param reason a rejection's problem+json {@code reason} (or {@code title}), else null
 * @param jobCpuMillis the CPU a finished job's work took, as the service reports it
 *     ({@code cpuUsedMillis}); NaN when it does not
 */
record Answer(
    String size, double sentAt, double answeredAt, int status, String reason, double jobCpuMillis) {

  /** An answer without a reported job CPU. */
  Answer(String size, double sentAt, double answeredAt, int status, String reason) {
    this(size, sentAt, answeredAt, status, reason, Double.NaN);
  }

  /** The status of a try that failed without an answer. */
  static final int IO_ERROR = -1;

  /** From the intended send to the answer. */
  double latencyMillis() {
    return (answeredAt - sentAt) * 1000;
  }

  boolean admitted() {
    return status / 100 == 2;
  }

  /** A refusal by the limiter: 429, or a 503 / 504 (queue timeout, shutdown). */
  boolean rejected() {
    return status == 429 || status == 503 || status == 504;
  }

  boolean serverError() {
    return status / 100 == 5;
  }
}
