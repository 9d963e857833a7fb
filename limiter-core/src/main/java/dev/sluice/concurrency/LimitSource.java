package dev.sluice.concurrency;

/**
 * Where the number of permits comes from. Today only {@link FixedLimit} (set by configuration or
 * {@link ConcurrencyLimiter#setMaxConcurrency}); an adaptive limit (Vegas, gradient, CPU-driven)
 * would implement this and learn from {@link #onSample}, without the limiter itself changing.
 */
interface LimitSource {

  /** The current limit, at least 1. Read on every fast-path acquire: must be a plain volatile read. */
  int limit();

  /** Sets the limit (from configuration or an operator); at least 1. */
  void setLimit(int limit);

  /** A permit was held for {@code serviceNanos} with {@code inFlight} permits taken at its release. */
  default void onSample(long serviceNanos, int inFlight) {}
}
