package dev.sluice.servlet;

import dev.sluice.concurrency.ConcurrencyListener;
import dev.sluice.config.PathLimiter;
import dev.sluice.micrometer.SluiceMeters;
import dev.sluice.rules.RateListener;
import dev.sluice.rules.RateRules;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.List;
import java.util.function.ObjIntConsumer;

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

  /** Meters in no registry yet: the builder binds them once every setting is checked. */
  static Object unbound() {
    return new SluiceMeters();
  }

  /** Binds {@code meters} ({@link #unbound}'s, or null: nothing) to {@code registries}. */
  static void bindTo(Object meters, List<Object> registries) {
    if (meters == null) {
      return;
    }
    for (Object registry : registries) {
      ((SluiceMeters) meters).bindTo((MeterRegistry) registry);
    }
  }

  /** What the limiters tell {@code meters} ({@link #unbound}'s, or null: nothing). */
  static ConcurrencyListener limiterListener(Object meters) {
    return meters == null ? null : ((SluiceMeters) meters).concurrencyListener();
  }

  /**
   * Counts the filter's answers in {@code meters} ({@link #unbound}'s, or null: nothing) as {@code
   * sluice.http.rejections}, tagged by reason and status, as the plugin counts its own.
   */
  static ObjIntConsumer<String> rejections(Object meters) {
    return meters == null ? null : ((SluiceMeters) meters)::onHttpRejection;
  }

  /** What the rules tell {@code meters} ({@link #unbound}'s, or null: nothing). */
  static RateListener ruleListener(Object meters) {
    return meters == null ? null : ((SluiceMeters) meters).rateListener();
  }

  /**
   * Registers on {@code meters} ({@link #unbound}'s, or null: nothing) the gauges of every limiter
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
