package dev.sluice.loadtest.overload;

import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.percent;

import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The headlines of the overload report: per kind of job and {@link OverloadTarget} that applies to
 * it, which variants met the aim and which missed it, with the figures at each point it is judged
 * at. A headline is green when a Sluice variant met the aim everywhere it was judged, red when
 * every Sluice variant judged missed it somewhere, grey when nothing could judge it (the point or
 * the step was not run, or the run measured nothing there). The Netflix peers are named beside
 * Sluice's variants but do not colour the headline.
 */
final class OverloadVerdict {

  private OverloadVerdict() {}

  /** A variant's judgements of one target: each figure with its point and whether it met. */
  private record Judged(String variant, List<String> figures, boolean met) {}

  static List<Verdict> of(Iterable<String> kinds, List<SweepResult> sweep, List<StepResult> step) {
    List<Verdict> verdicts = new ArrayList<>();
    for (String kind : kinds) {
      List<SweepResult> kindSweep =
          sweep.stream().filter(r -> r.kind().equals(kind)).toList();
      List<StepResult> kindStep =
          step.stream().filter(r -> r.kind().equals(kind)).toList();
      for (OverloadTarget target : OverloadTarget.values()) {
        if (!applies(target, kind)) {
          continue;
        }
        boolean stepTarget =
            target == OverloadTarget.STEP_CPU || target == OverloadTarget.STEP_NO_5XX;
        if (stepTarget && kindStep.isEmpty()) {
          continue; // said once below
        }
        verdicts.add(
            stepTarget
                ? verdict(kind, target, judgeStep(target, kindStep), failedSteps(kindStep))
                : verdict(kind, target, judgeSweep(target, kindSweep), failedSweep(kindSweep)));
      }
      if (kindStep.isEmpty()) {
        verdicts.add(Verdict.notMeasured(kind + " jobs, " + OverloadTarget.STEP_CPU.aim() + "; "
            + OverloadTarget.STEP_NO_5XX.aim() + ": not measured (the step test was not run)"));
      }
    }
    return verdicts;
  }

  /** Where the aim is judged at all: admitted p99 on short jobs, the CPU's on mixed sizes. */
  static boolean applies(OverloadTarget target, String kind) {
    return switch (target) {
      case ADMITTED_P99 -> kind.equals(JobKind.SHORT.id());
      case CPU_SPREAD, CPU_MEAN ->
        kind.equals(JobKind.SIZES.id()) || kind.equals(JobKind.WIDE.id());
      default -> true;
    };
  }

  private static List<Judged> judgeSweep(OverloadTarget target, List<SweepResult> runs) {
    Map<String, List<SweepResult>> byVariant = new LinkedHashMap<>();
    runs.forEach(
        r -> byVariant.computeIfAbsent(r.variant(), v -> new ArrayList<>()).add(r));
    List<Judged> judged = new ArrayList<>();
    byVariant.forEach((variant, rows) -> {
      List<String> figures = new ArrayList<>();
      boolean met = true;
      for (SweepResult r : rows) {
        Optional<Boolean> verdict = target.judge(r);
        if (verdict.isPresent()) {
          figures.add(figure(target, r.figures()) + " at " + OverloadRun.num(r.point()) + "x");
          met &= verdict.get();
        }
      }
      if (!figures.isEmpty()) {
        judged.add(new Judged(variant, figures, met));
      }
    });
    return judged;
  }

  private static List<Judged> judgeStep(OverloadTarget target, List<StepResult> runs) {
    List<Judged> judged = new ArrayList<>();
    for (StepResult r : runs) {
      target
          .judge(r)
          .ifPresent(met -> judged.add(new Judged(
              r.variant(),
              List.of(
                  target == OverloadTarget.STEP_CPU
                      ? Double.isNaN(r.cpuSettleUp()) ? "not settled" : num(r.cpuSettleUp()) + " s"
                      : r.high().counts().serverErrors() + " 5xx"),
              met)));
    }
    return judged;
  }

  private static String figure(OverloadTarget target, RunFigures f) {
    return switch (target) {
      case GOODPUT -> percent(f.workOfTarget());
      case ADMITTED_P99 -> num(f.admittedP99OverUnloaded()) + "x";
      case FAST_REJECTIONS -> percent(f.rejectedWithin50Share());
      case CPU_SPREAD -> "sd " + num(f.processCpu().stddev());
      case CPU_MEAN -> num(f.processCpu().mean()) + "%";
      case STEP_CPU, STEP_NO_5XX -> "";
    };
  }

  private static List<String> failedSweep(List<SweepResult> runs) {
    return runs.stream()
        .filter(r -> r.figures() == null)
        .map(SweepResult::variant)
        .distinct()
        .toList();
  }

  private static List<String> failedSteps(List<StepResult> runs) {
    return runs.stream()
        .filter(r -> r.high() == null)
        .map(StepResult::variant)
        .distinct()
        .toList();
  }

  private static Verdict verdict(
      String kind, OverloadTarget target, List<Judged> judged, List<String> notRun) {
    List<String> unjudged = notRun.stream()
        .filter(v -> judged.stream().noneMatch(j -> j.variant().equals(v)))
        .toList();
    String text = Verdict.byVariant(
        kind + " jobs, " + target.aim() + ": ",
        names(judged.stream().filter(Judged::met).toList()),
        names(judged.stream().filter(j -> !j.met()).toList()),
        unjudged,
        "not measured (no run measured it where it is judged)");
    List<Judged> sluice = judged.stream().filter(j -> !peer(j.variant())).toList();
    if (sluice.isEmpty()) {
      return Verdict.notMeasured(text);
    }
    return Verdict.of(sluice.stream().anyMatch(Judged::met), text);
  }

  private static List<String> names(List<Judged> judged) {
    return judged.stream()
        .map(j -> j.variant() + " (" + String.join(", ", j.figures()) + ")")
        .toList();
  }

  /** The Netflix limiters, measured beside Sluice's variants for comparison. */
  static boolean peer(String variant) {
    return variant.startsWith("netflix-");
  }
}
