package dev.sluice.loadtest.overload;

import java.util.Optional;

/**
 * The aims the overload sweep and the step test are judged by, each where it applies: a figure is
 * shown green or red only beside the target it answers, with the aim written out.
 */
enum OverloadTarget {
  /** Goodput holds under overload: what is admitted gets done. */
  GOODPUT(
      "goodput >= 95% of the capacity at the 70% CPU target, at 2x, 5x and 10x",
      ">= 95% at 2x-10x"),
  /** Standing-queue control keeps admitted latency near the unloaded one. */
  ADMITTED_P99("admitted p99 <= 2x the unloaded p99, short jobs at 5x", "<= 2x, short at 5x"),
  /** Rejections come at once, not after a wait. */
  FAST_REJECTIONS(">= 95% of rejections answered within 50 ms, at 2x", ">= 95% at 2x"),
  /** Cost-aware admission steadies the CPU when job sizes differ. */
  CPU_SPREAD("CPU sd <= 8 points second to second, mixed sizes", "<= 8, sizes"),
  /** ... without leaving the target. */
  CPU_MEAN("CPU mean 70 +/- 5, mixed sizes", "70 +/- 5, sizes"),
  /** The CPU settles quickly after a jump in load. */
  STEP_CPU("CPU back within 5 points of 70% within 2 s of the 1x to 10x step", "<= 2 s"),
  /** No step breaks the service. */
  STEP_NO_5XX("no 5xx at any step", "0");

  private final String aim;
  private final String shortAim;

  OverloadTarget(String aim, String shortAim) {
    this.aim = aim;
    this.shortAim = shortAim;
  }

  /** The aim in full, listed once at the top of the report. */
  String aim() {
    return aim;
  }

  /** The aim in a column's header, beside the figure it judges. */
  String shortAim() {
    return shortAim;
  }

  /** Met or missed for this point of the sweep, or empty where the target does not apply. */
  Optional<Boolean> judge(SweepResult r) {
    if (r.figures() == null) {
      return Optional.empty();
    }
    RunFigures f = r.figures();
    boolean mixed = OverloadVerdict.applies(CPU_SPREAD, r.kind());
    return switch (this) {
      case GOODPUT -> r.point() >= 2 ? met(f.workOfTarget() >= 0.95) : Optional.empty();
      case ADMITTED_P99 ->
        r.kind().equals(JobKind.SHORT.id()) && r.point() == 5
            ? met(f.admittedP99OverUnloaded() <= 2)
            : Optional.empty();
      case FAST_REJECTIONS ->
        r.point() == 2 && !Double.isNaN(f.rejectedWithin50Share())
            ? met(f.rejectedWithin50Share() >= 0.95)
            : Optional.empty();
      case CPU_SPREAD -> mixed ? met(f.processCpu().stddev() <= 8) : Optional.empty();
      case CPU_MEAN -> mixed ? met(Math.abs(f.processCpu().mean() - 70) <= 5) : Optional.empty();
      case STEP_CPU, STEP_NO_5XX -> Optional.empty();
    };
  }

  /** Met or missed for a step run, or empty where the target does not apply. */
  Optional<Boolean> judge(StepResult r) {
    if (r.high() == null) {
      return Optional.empty();
    }
    return switch (this) {
      case STEP_CPU -> met(r.cpuSettleUp() <= 2); // NaN (never settled) compares false
      case STEP_NO_5XX -> met(r.high().counts().serverErrors() == 0);
      default -> Optional.empty();
    };
  }

  private static Optional<Boolean> met(boolean met) {
    return Optional.of(met);
  }
}
