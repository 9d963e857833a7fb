package dev.sluice.loadtest.overload;

import static dev.sluice.loadtest.report.Numbers.num;
import static dev.sluice.loadtest.report.Numbers.percent;

import dev.sluice.loadtest.report.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/**
 * The headlines of an overload run through the gRPC door, per kind of job at {@link #POINT}x: queued
 * calls hold no thread, refusals come at once, standing-queue control keeps the admitted p99 near
 * the unloaded one, and a retrying client's retries wait out the pushback.
 */
final class DoorVerdict {

  /** The offered load the door's aims are judged at, as a multiple of the capacity. */
  static final double POINT = 5;

  private DoorVerdict() {}

  /** One aim: its text, the variants it is judged on, the figure and whether a variant met it. */
  private record Aim(
      String text,
      boolean everyVariant,
      Function<SweepResult, Optional<Boolean>> judge,
      Function<SweepResult, String> figure) {}

  static List<Verdict> of(Iterable<String> kinds, List<SweepResult> sweep) {
    List<Aim> aims = List.of(
        new Aim(
            "thread count <= unloaded + jobs running at once + " + DoorFigures.THREAD_SLACK
                + " (queued calls hold no thread)",
            true,
            r -> r.door() == null ? Optional.empty() : r.door().threadsFlat(),
            DoorVerdict::threads),
        new Aim(
            ">= 95% of refusals within 50 ms",
            false,
            r -> r.figures() == null || Double.isNaN(r.figures().rejectedWithin50Share())
                ? Optional.empty()
                : Optional.of(r.figures().rejectedWithin50Share() >= 0.95),
            r -> percent(r.figures().rejectedWithin50Share())),
        new Aim(
            "admitted p99 <= 2x the unloaded p99 with standing-queue control",
            false,
            r -> r.figures() == null || !r.variant().equals("standing")
                ? Optional.empty()
                : Optional.of(r.figures().admittedP99OverUnloaded() <= 2),
            r -> num(r.figures().admittedP99OverUnloaded()) + "x"),
        new Aim(
            "a retrying client's retries start no earlier than the pushback",
            true,
            r -> r.door() == null ? Optional.empty() : r.door().pushbackHonoured(),
            DoorVerdict::pushback));
    List<Verdict> verdicts = new ArrayList<>();
    for (String kind : kinds) {
      List<SweepResult> runs = sweep.stream()
          .filter(r -> r.kind().equals(kind) && r.point() == POINT)
          .toList();
      for (Aim aim : aims) {
        verdicts.add(verdict(kind, aim, runs));
      }
    }
    return verdicts;
  }

  private static Verdict verdict(String kind, Aim aim, List<SweepResult> runs) {
    String head = kind + " jobs over gRPC at " + OverloadRun.num(POINT) + "x, " + aim.text() + ": ";
    List<String> met = new ArrayList<>();
    List<String> missed = new ArrayList<>();
    List<String> notRun = new ArrayList<>();
    for (SweepResult r : runs) {
      if (r.figures() == null) {
        notRun.add(r.variant());
        continue;
      }
      Optional<Boolean> judged = aim.judge().apply(r);
      if (judged.isPresent()) {
        (judged.get() ? met : missed).add(r.variant() + " (" + aim.figure().apply(r) + ")");
      }
    }
    String text = Verdict.byVariant(
        head,
        met,
        missed,
        notRun,
        runs.isEmpty()
            ? "not measured (no run at " + OverloadRun.num(POINT) + "x: add it to --points)"
            : "not measured (no run there measured it)");
    if (met.isEmpty() && missed.isEmpty()) {
      return Verdict.notMeasured(text);
    }
    boolean ok = aim.everyVariant() ? missed.isEmpty() : !met.isEmpty();
    return Verdict.of(ok, text);
  }

  static String threads(SweepResult r) {
    DoorFigures d = r.door();
    return "max " + d.threads().max() + " against " + d.unloadedThreads().max() + " + "
        + Math.max(0, d.inFlightMax()) + " + " + DoorFigures.THREAD_SLACK + " = "
        + d.threadCeiling() + "; up to " + d.queuedMax() + " queued";
  }

  static String pushback(SweepResult r) {
    DoorFigures d = r.door();
    return d.pushback().afterPushback() + " retries after a pushback, "
        + d.pushback().violationCount() + " early, least slack "
        + num(d.pushback().minSlackMillis()) + " ms";
  }
}
