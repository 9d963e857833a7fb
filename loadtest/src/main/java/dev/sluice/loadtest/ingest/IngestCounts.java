package dev.sluice.loadtest.ingest;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/** Sends, rejections and acceptances of one ingest client, in total and per second of its run. */
final class IngestCounts {

  private static final int SECONDS = 600;

  private final long startNanos = System.nanoTime();
  private final AtomicLongArray sendsPerSecond = new AtomicLongArray(SECONDS);
  private final AtomicLongArray rejectedPerSecond = new AtomicLongArray(SECONDS);
  final AtomicLong sends = new AtomicLong();
  final AtomicLong rejected = new AtomicLong();
  final AtomicLong accepted = new AtomicLong();
  final AtomicLong retries = new AtomicLong();
  private volatile long lastAcceptedNanos = startNanos;

  void sent() {
    sends.incrementAndGet();
    sendsPerSecond.incrementAndGet(second());
  }

  /** The naive client's view: every answer. */
  void answered(int status) {
    if (status == 429) {
      rejectedOne();
    } else if (status >= 200 && status < 300) {
      acceptedOne();
    }
  }

  void rejectedOne() {
    rejected.incrementAndGet();
    rejectedPerSecond.incrementAndGet(second());
  }

  void acceptedOne() {
    accepted.incrementAndGet();
    lastAcceptedNanos = System.nanoTime();
  }

  private int second() {
    return (int) Math.min(SECONDS - 1, (System.nanoTime() - startNanos) / 1_000_000_000L);
  }

  IngestClients.Client summary(long records) {
    int last = (int) Math.min(SECONDS - 1, (lastAcceptedNanos - startNanos) / 1_000_000_000L);
    long[] sendsBySecond = new long[last + 1];
    long[] rejectedBySecond = new long[last + 1];
    for (int s = 0; s <= last; s++) {
      sendsBySecond[s] = sendsPerSecond.get(s);
      rejectedBySecond[s] = rejectedPerSecond.get(s);
    }
    return new IngestClients.Client(
        records,
        accepted.get(),
        sends.get(),
        rejected.get(),
        (lastAcceptedNanos - startNanos) / 1e9,
        100.0 * (sends.get() - records) / records,
        retries.get(),
        sendsBySecond,
        rejectedBySecond);
  }
}
