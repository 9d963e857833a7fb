package dev.sluice.concurrency;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Builds limiters on virtual time and a queued executor, the way most tests want them. */
public final class Limiters {

  public final VirtualTime time = new VirtualTime();
  public final QueuedExecutor executor = new QueuedExecutor();

  /** A spec with these three settings, for a test to add the one it is about. */
  public static LimiterSpec.Builder spec(int maxConcurrency, int maxQueue, Duration queueTimeout) {
    return LimiterSpec.custom()
        .maxConcurrency(maxConcurrency)
        .maxQueue(maxQueue)
        .queueTimeout(queueTimeout);
  }

  /** A limiter of {@code spec} on this virtual time and executor. */
  public ConcurrencyLimiter.Builder builder(LimiterSpec spec) {
    return ConcurrencyLimiter.builder("test")
        .spec(spec)
        .clock(time)
        .scheduler(time)
        .executor(executor);
  }

  public ConcurrencyLimiter.Builder builder(
      int maxConcurrency, int maxQueue, Duration queueTimeout) {
    return builder(spec(maxConcurrency, maxQueue, queueTimeout).build());
  }

  public ConcurrencyLimiter limiter(int maxConcurrency, int maxQueue) {
    return builder(maxConcurrency, maxQueue, Duration.ofSeconds(10)).build();
  }

  /**
   * The permit of an acquire that was admitted in the call: fails at once when it was not, where
   * {@code join()} would wait for ever on a caller left in the queue.
   */
  public static Permit admitted(CompletableFuture<Permit> acquire) {
    assertThat(acquire).as("admitted in the call").isCompleted();
    return acquire.join();
  }
}
