package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.PathLimiter;
import dev.sluice.micrometer.SluiceMeters;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RateRules;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;

/**
 * The filter's Micrometer meters, the plugin's names and tags ({@link SluiceMeters}). Micrometer is
 * an optional dependency of the filter: only this class touches it, and only once {@link
 * #onClassPath()} said it is there.
 */
final class FilterMeters {

  private FilterMeters() {}

  /** Whether Micrometer is on the application's class path. */
  static boolean onClassPath() {
    try {
      Class.forName(
          "io.micrometer.core.instrument.MeterRegistry",
          false,
          FilterMeters.class.getClassLoader());
      Class.forName(
          "dev.sluice.micrometer.SluiceMeters", false, FilterMeters.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  /** Meters bound to {@code registries} before any meter exists. */
  static Object bound(List<Object> registries) {
    SluiceMeters meters = new SluiceMeters();
    for (Object registry : registries) {
      meters.bindTo((MeterRegistry) registry);
    }
    return meters;
  }

  /** What the limiters tell {@code meters} ({@link #bound}'s, or null: nothing). */
  static ConcurrencyListener limiterListener(Object meters) {
    return meters == null ? null : ((SluiceMeters) meters).concurrencyListener();
  }

  /** What the rules tell {@code meters} ({@link #bound}'s, or null: nothing). */
  static RateListener ruleListener(Object meters) {
    return meters == null ? null : ((SluiceMeters) meters).rateListener();
  }

  /**
   * Registers on {@code meters} ({@link #bound}'s, or null: nothing) the gauges of every limiter
   * and the number of rules (null: none).
   */
  static void gauges(Object found, List<PathLimiter> limiters, RateRules rules) {
    if (found == null) {
      return;
    }
    SluiceMeters meters = (SluiceMeters) found;
    for (PathLimiter l : limiters) {
      meters.gauges(l.name(), l.limiter()::snapshot);
      meters.queueGauges(l.name(), l.limiter()::queueSnapshot);
    }
    if (rules != null) {
      meters.ruleCount(() -> rules.rules().rules().size());
    }
  }
}
