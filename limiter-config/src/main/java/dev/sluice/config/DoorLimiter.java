package dev.sluice.config;

import dev.sluice.concurrency.ConcurrencyLimiter;

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
}
