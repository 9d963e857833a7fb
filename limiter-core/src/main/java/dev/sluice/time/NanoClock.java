package dev.sluice.time;

/**
 * A monotonic clock in nanoseconds, the only source of time for every limiter decision.
 *
 * <p>Values have the semantics of {@link System#nanoTime()}: only differences mean anything, and a
 * value may be negative or wrap. Limiters never read the wall clock, so a node whose clock is
 * adjusted (NTP, a VM resume) does not over- or under-admit. Tests inject a virtual clock.
 */
@FunctionalInterface
public interface NanoClock {

  /** The current time in nanoseconds; comparable only with other values of the same clock. */
  long nanoTime();

  /** The JVM's {@link System#nanoTime()}. */
  static NanoClock system() {
    return SystemNanoClock.INSTANCE;
  }
}
