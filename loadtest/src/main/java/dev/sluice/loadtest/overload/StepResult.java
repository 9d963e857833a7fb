package dev.sluice.loadtest.overload;

import dev.sluice.loadtest.sampling.RunSummary;
import java.util.List;
import java.util.OptionalDouble;
import java.util.function.DoublePredicate;

/**
 * One variant through the step test on one kind of job; one object of {@code summary.json}'s
 * {@code step}. Settling times are seconds from the step (an upper bound at the 1 s resolution of
 * the readings), NaN when the series did not settle before the next step.
 *
 * @param kind job kind id
 * @param variant variant name
 * @param description what guarded the endpoint
 * @param load the offered load over the run
 * @param cpuSettleUp after the step up, until the service's CPU stays within 5 points of 70 %
 * @param cpuSettleDown the same after the step down
 * @param cpuSettleUp2s {@code cpuSettleUp} read on means of 2 seconds (see {@link
 *     StepRecovery#means}): the controller's settling where 1-second readings scatter by a job's
 *     share of a second (few cores, long jobs)
 * @param cpuSettleDown2s the same after the step down
 * @param p99SettleUp after the step up, until admitted p99 (per second of sending) stays within 2x
 *     the unloaded p99
 * @param p99SettleDown the same after the step down
 * @param high the figures of the high phase
 * @param loadAverageAfter {@code /proc/loadavg} after the run
 * @param error why it did not run, or null
 * @param run everything the run measured (the chart)
 */
public record StepResult(
    String kind,
    String variant,
    String description,
    StepLoad load,
    double cpuSettleUp,
    double cpuSettleDown,
    double cpuSettleUp2s,
    double cpuSettleDown2s,
    double p99SettleUp,
    double p99SettleDown,
    RunFigures high,
    String loadAverageAfter,
    String error,
    RunSummary run) {

  /** Points either side of the CPU target that count as back on it. */
  static final double CPU_BAND_POINTS = 5;
  /** Admitted p99 within this multiple of the unloaded p99 counts as recovered. */
  static final double P99_BAND = 2;

  static StepResult of(
      JobKind kind,
      OverloadVariant variant,
      StepLoad load,
      List<Answer> answers,
      long sent,
      RunSummary run,
      Capacity capacity,
      String loadAfter) {
    List<StepRecovery.Reading> cpu = run.samples().stream()
        .map(s -> new StepRecovery.Reading(s.second(), s.processCpuPercent()))
        .toList();
    List<StepRecovery.Reading> cpu2s = StepRecovery.means(cpu, 2);
    List<StepRecovery.Reading> p99 = StepRecovery.admittedP99PerSecond(answers);
    double target = 100 * Capacity.TARGET_CPU;
    DoublePredicate cpuOk = v -> Math.abs(v - target) <= CPU_BAND_POINTS;
    DoublePredicate p99Ok = v -> v <= P99_BAND * capacity.unloadedP99Millis();
    return new StepResult(
        kind.id(),
        variant.name(),
        variant.description(),
        load,
        seconds(StepRecovery.settle(cpu, load.upAt(), load.downAt(), cpuOk)),
        seconds(StepRecovery.settle(cpu, load.downAt(), load.end(), cpuOk)),
        seconds(StepRecovery.settle(cpu2s, load.upAt(), load.downAt(), cpuOk)),
        seconds(StepRecovery.settle(cpu2s, load.downAt(), load.end(), cpuOk)),
        seconds(StepRecovery.settle(p99, load.upAt(), load.downAt(), p99Ok)),
        seconds(StepRecovery.settle(p99, load.downAt(), load.end(), p99Ok)),
        RunFigures.of(
            answers,
            sent,
            run.samples(),
            load.upAt(),
            load.downAt(),
            capacity,
            variant.limiterName()),
        loadAfter,
        null,
        run);
  }

  static StepResult failed(
      JobKind kind, OverloadVariant variant, StepLoad load, String loadAfter, String error) {
    return new StepResult(
        kind.id(),
        variant.name(),
        variant.description(),
        load,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        Double.NaN,
        null,
        loadAfter,
        error,
        null);
  }

  private static double seconds(OptionalDouble settled) {
    return settled.orElse(Double.NaN);
  }
}
