package dev.sluice.loadtest.ingest;

import java.util.Map;

/**
 * The {@code clients} object of {@code summary.json} for {@code --scenario ingest}: the same records
 * pushed into the same rate-limited service by a naive client and by Sluice's paced client.
 *
 * @param service what the records went into
 * @param limitPerSecond the service's rate rule, records per second
 * @param idealSeconds records / limit: the least time any client can take
 * @param load the machine's load average when the run ended (the machine is shared)
 * @param clients {@code naive} and {@code paced}
 */
record IngestClients(
    String service,
    long limitPerSecond,
    double idealSeconds,
    double load,
    Map<String, Client> clients) {

  /**
   * One client's run.
   *
   * @param records records to deliver
   * @param accepted records the service accepted
   * @param sends requests sent, every try counted
   * @param rejected sends answered 429
   * @param seconds from the first send to the last record accepted
   * @param extraSendsPercent sends beyond one per record, % of the records
   * @param retries records tried again (the paced client's own retries; the naive one retries every 429)
   * @param sendsPerSecond sends in each second of the run
   * @param rejectedPerSecond 429 answers in each second of the run
   */
  @SuppressWarnings("ArrayRecordComponent") // figures for the report, never compared or hashed
  record Client(
      long records,
      long accepted,
      long sends,
      long rejected,
      double seconds,
      double extraSendsPercent,
      long retries,
      long[] sendsPerSecond,
      long[] rejectedPerSecond) {}
}
