package dev.sluice.javalin;

import dev.sluice.time.NanoClock;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;

/**
 * Logs a recurring failure (a store that is down, a rules file that does not parse) at warn at most
 * once per interval, with the number of repeats swallowed since: a failing store under load would
 * otherwise write a line per request.
 */
final class WarnOnce {

  private final Logger log;
  private final NanoClock clock;
  private final long intervalNanos;
  private final AtomicLong nextAllowed;
  private final AtomicLong suppressed = new AtomicLong();

  WarnOnce(Logger log, NanoClock clock, long interval, TimeUnit unit) {
    this.log = log;
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
        log.warn("{} ({} similar warnings suppressed)", message, repeats, cause);
      } else {
        log.warn(message, cause);
      }
    } else {
      suppressed.incrementAndGet();
    }
  }
}
