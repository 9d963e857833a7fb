package dev.sluice.concurrency;

import dev.sluice.time.VirtualTime;
import java.time.Duration;

/** Builds limiters on virtual time and a queued executor, the way most tests want them. */
public final class Limiters {

  public final VirtualTime time = new VirtualTime();
  public final QueuedExecutor executor = new QueuedExecutor();

  public ConcurrencyLimiter.Builder builder(
      int maxConcurrency, int maxQueue, Duration queueTimeout) {
    return ConcurrencyLimiter.builder("test")
        .maxConcurrency(maxConcurrency)
        .maxQueue(maxQueue)
        .queueTimeout(queueTimeout)
        .clock(time)
        .scheduler(time)
        .executor(executor);
  }

  public ConcurrencyLimiter limiter(int maxConcurrency, int maxQueue) {
    return builder(maxConcurrency, maxQueue, Duration.ofSeconds(10)).build();
  }
}
