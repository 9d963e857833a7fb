package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.sampling.RunSummary;

/**
 * One variant on one kind of job at one multiple of the capacity; one object of
 * {@code summary.json}'s {@code sweep}.
 *
 * @param kind job kind id
 * @param variant variant name
 * @param description what guarded the endpoint
 * @param point offered load as a multiple of the unloaded capacity
 * @param offeredPerSecond offered jobs per second
 * @param figures over the steady window (after the first fifth of the arrivals, at least 2 s)
 * @param loadAverageAfter {@code /proc/loadavg} after the run
 * @param error why it did not run (the service did not start, or not as this variant), or null
 * @param run everything the run measured
 * @param door the gRPC door's figures (threads, the retrying client), or null for the HTTP door
 */
public record SweepResult(
    String kind,
    String variant,
    String description,
    double point,
    double offeredPerSecond,
    RunFigures figures,
    String loadAverageAfter,
    String error,
    RunSummary run,
    DoorFigures door) {

  /** The first fifth of the arrivals, at least 2 s, is the controllers' convergence. */
  static double steadyFrom(long durationSeconds) {
    return Math.min(durationSeconds / 2.0, Math.max(2, Math.ceil(durationSeconds / 5.0)));
  }

  static SweepResult failed(
      JobKind kind, OverloadVariant variant, double point, String loadAfter, String error) {
    return new SweepResult(
        kind.id(),
        variant.name(),
        variant.description(),
        point,
        Double.NaN,
        null,
        loadAfter,
        error,
        null,
        null);
  }
}
