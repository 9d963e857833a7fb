package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;
import java.util.List;

/**
 * A limiter as a door asks it for a request's permit: its name and settings, the core {@link
 * ConcurrencyLimiter}, how its waiting requests queue, and the paths it guards. {@link PathLimiter}
 * is the one the servlet filter and the gRPC interceptor build; the Javalin plugin has its own,
 * whose settings a reload replaces. Every method is asked on the request's path: none allocates.
 */
public interface DoorLimiter {

  /** The limiter's name. */
  String name();

  /** The settings in force. */
  LimiterConfig config();

  /** The core limiter. */
  ConcurrencyLimiter limiter();

  /** How its waiting requests queue (their key and class). */
  QueueCallers callers();

  /** Whether this limiter guards {@code path}; false for one that guards no path of its own. */
  boolean guards(String path);

  /**
   * The first of {@code limiters} that {@linkplain #guards guards} {@code path}, or null: the
   * limiters are tried in declaration order, by index (every door asks it on every request: no
   * iterator, no Optional). The result has the list's own type, so a door keeps its limiter type.
   */
  static <L extends DoorLimiter> L first(List<? extends L> limiters, String path) {
    for (int i = 0; i < limiters.size(); i++) {
      L l = limiters.get(i);
      if (l.guards(path)) {
        return l;
      }
    }
    return null;
  }
}
