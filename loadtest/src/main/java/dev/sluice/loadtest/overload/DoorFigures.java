package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.engine.PushbackCheck;
import dev.sluice.loadtest.sampling.ThreadCount;
import java.util.Optional;

/**
 * What a sweep run through the demo's gRPC door adds to its figures: the service's thread count
 * (unloaded and under the run) and the retrying client's attempts against the pushback.
 *
 * @param unloadedThreads the service's threads while it answered a few calls one at a time, before
 *     the run
 * @param threads the service's threads from the run's first arrival to the end of its drain
 * @param inFlightMax the most jobs the limiter ran at once ({@code /sluice}, once a second)
 * @param queuedMax the most calls it kept waiting at once ({@code /sluice}, once a second)
 * @param retryingPerSecond calls per second the retrying client sent beside the run's load
 * @param pushback its attempts, judged against the pushback
 */
public record DoorFigures(
    ThreadCount.Range unloadedThreads,
    ThreadCount.Range threads,
    int inFlightMax,
    int queuedMax,
    double retryingPerSecond,
    PushbackCheck pushback) {

  /**
   * Threads a run may add beyond its running jobs whatever its queue holds: pools that grow by a
   * thread or two (Netty's event loops, Jetty's spares, the JDK's common pool), a GC or JIT helper.
   */
  static final int THREAD_SLACK = 8;

  /**
   * The most threads a run may show if queued calls hold none: the unloaded count, one thread per
   * job running at once (a permit's job runs on a Jetty pool thread), and {@link #THREAD_SLACK}.
   */
  int threadCeiling() {
    return unloadedThreads.max() + Math.max(0, inFlightMax) + THREAD_SLACK;
  }

  /** Whether the thread count stayed under {@link #threadCeiling}; empty when not read. */
  Optional<Boolean> threadsFlat() {
    return unloadedThreads.measured() && threads.measured()
        ? Optional.of(threads.max() <= threadCeiling())
        : Optional.empty();
  }

  /** Whether the retries waited out the pushback; empty when no retry followed one. */
  Optional<Boolean> pushbackHonoured() {
    return pushback.afterPushback() > 0
        ? Optional.of(pushback.violationCount() == 0)
        : Optional.empty();
  }
}
