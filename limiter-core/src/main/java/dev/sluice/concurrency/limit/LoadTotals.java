package dev.sluice.concurrency.limit;

import dev.sluice.time.NanoClock;
import java.util.function.DoubleSupplier;

/**
 * Running totals of a load that is answered "since the previous call", such as the JDK's {@code
 * OperatingSystemMXBean.getCpuLoad()}: each answer, weighted by the time since the previous poll,
 * is added to the busy time, so readers can take differences over their own intervals (see {@link
 * CpuSignal}). The load and the clock are injected so that the integration can be checked exactly.
 */
final class LoadTotals {

  /** Polls closer than this return the totals of the previous poll (the JDK's own floor). */
  static final long MIN_POLL_NANOS = 10_000_000;

  /** The load since its previous call, 0 to 1; negative when it could not be measured. */
  private final DoubleSupplier loadSincePreviousCall;

  private final NanoClock clock;
  private double busy;
  private long measured;
  private long lastPoll;
  private boolean primed;

  LoadTotals(DoubleSupplier loadSincePreviousCall, NanoClock clock) {
    this.loadSincePreviousCall = loadSincePreviousCall;
    this.clock = clock;
    this.lastPoll = clock.nanoTime();
  }

  /** The totals now; polls the load unless the previous poll was less than the floor ago. */
  synchronized CpuSignal.Reading read() {
    long now = clock.nanoTime();
    long elapsed = now - lastPoll;
    if (elapsed >= MIN_POLL_NANOS) {
      double load = loadSincePreviousCall.getAsDouble(); // we are its only caller
      lastPoll = now;
      if (!primed) {
        primed = true; // the first answer covers an unknown interval
      } else if (load >= 0) {
        busy += Math.min(1.0, load) * elapsed;
        measured += elapsed;
      }
    }
    return new CpuSignal.Reading(busy, measured);
  }
}
