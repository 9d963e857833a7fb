package dev.sluice.javalin;

import dev.sluice.time.NanoClock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Logs a recurring failure (a store that is down, a rules file that does not parse) at warn at most
 * once per interval, with the number of repeats swallowed since: a failing store under load would
 * otherwise write a line per request. Without an SLF4J backend, the first one reaches stderr (see
 * {@link Warnings}).
 */
final class WarnOnce {

  private final Warnings warnings;
  private final String kind;
  private final NanoClock clock;
  private final long intervalNanos;
  private final AtomicLong nextAllowed;
  private final AtomicLong suppressed = new AtomicLong();

  /**
   * @param kind what fails, e.g. {@code "rate rules"}: on stderr (no SLF4J backend) only the first
   *     warning of a kind is written
   */
  WarnOnce(Warnings warnings, String kind, NanoClock clock, long interval, TimeUnit unit) {
    this.warnings = warnings;
    this.kind = kind;
    this.clock = clock;
    this.intervalNanos = unit.toNanos(interval);
    this.nextAllowed = new AtomicLong(clock.nanoTime());
  }

  void warn(String message, Throwable cause) {
    long now = clock.nanoTime();
    long next = nextAllowed.get();
    if (now - next >= 0 && nextAllowed.compareAndSet(next, now + intervalNanos)) {
      long repeats = suppressed.getAndSet(0);
      if (repeats > 0) {
        warnings.warn(kind, message + " (" + repeats + " similar warnings suppressed)", cause);
      } else {
        warnings.warn(kind, message, cause);
      }
    } else {
      suppressed.incrementAndGet();
    }
  }
}
