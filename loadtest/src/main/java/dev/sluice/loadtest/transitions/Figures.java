package dev.sluice.loadtest.transitions;

import static dev.sluice.loadtest.report.Numbers.percent;
import static dev.sluice.loadtest.report.Numbers.round;

import dev.sluice.loadtest.report.Verdict;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalDouble;

/**
 * The verdicts of each part of {@code --scenario transitions}, judged on the figures {@link
 * TransitionsRun} measures from what the run recorded (the tries, the nodes' own in-flight counts,
 * the CPU samples): no I/O, so they are tested on made-up data.
 */
final class Figures {

  /** A refusal answered within this many ms counts as an early answer. */
  static final double EARLY_MILLIS = 50;

  static final double EARLY_AIM = 0.95;
  static final double TIMEOUTS_AIM = 0.05;
  /** The CPU band around the target: within this many points of it, in percent of the machine. */
  static final double CPU_BAND_POINTS = 15;

  static final double JOIN_AIM_SECONDS = 2;
  static final double RECOVERY_AIM_SECONDS = 5;

  private Figures() {}

  /** One reading of one node's own records. */
  record InFlight(long nanos, int node, int inFlight, int queued) {}

  /** One CPU reading of a node: percent of the whole machine over the interval ending at t. */
  record Cpu(double seconds, double percent) {}

  // ---- (a) cold start

  static List<Verdict> coldStart(
      List<Shot> shots, long firstNanos, double seconds, List<Cpu> cpu, double targetPercent) {
    return coldStart("cold start", shots, firstNanos, seconds, cpu, targetPercent);
  }

  /**
   * The three cold-start verdicts, each line starting with {@code label}: early refusals, 504s in
   * the first minute (or the whole load when shorter), and the CPU in seconds 7-10.
   */
  static List<Verdict> coldStart(
      String label,
      List<Shot> shots,
      long firstNanos,
      double seconds,
      List<Cpu> cpu,
      double targetPercent) {
    List<Verdict> verdicts = new ArrayList<>();
    double early = TransitionsRun.earlyRefusals(shots);
    long refusals = shots.stream().filter(Shot::refusal).count();
    verdicts.add(
        Double.isNaN(early)
            ? Verdict.notMeasured(label + ": no refusal, so no early answer to judge")
            : Verdict.of(
                early >= EARLY_AIM,
                label + ": " + Verdict.withAim(percent(early), "≥ 95%") + " of " + refusals
                    + " refusals answered within 50 ms of the request"));
    double window = Math.min(60, seconds);
    double timeouts = TransitionsRun.timeoutShare(shots, firstNanos, window);
    verdicts.add(
        Double.isNaN(timeouts)
            ? Verdict.notMeasured(label + ": no refusal in the first minute")
            : Verdict.of(
                timeouts <= TIMEOUTS_AIM,
                label + ": 504s " + Verdict.withAim(percent(timeouts), "≤ 5%")
                    + " of the refusals in the first " + round(window) + " s"));
    OptionalDouble at10 = TransitionsRun.cpuBetween(cpu, 7, 10);
    verdicts.add(
        at10.isEmpty()
            ? Verdict.notMeasured(label + ": no CPU sample between 7 and 10 s")
            : Verdict.of(
                Math.abs(at10.getAsDouble() - targetPercent) <= CPU_BAND_POINTS,
                label + ": CPU " + round(at10.getAsDouble()) + "% of the machine in seconds 7-10 "
                    + "(aim within " + round(targetPercent - CPU_BAND_POINTS) + "-"
                    + round(targetPercent + CPU_BAND_POINTS) + "%, the target ± "
                    + round(CPU_BAND_POINTS) + " points)"));
    return verdicts;
  }

  /**
   * Which of {@code binaries} no directory of {@code path} (a {@code PATH} value) holds as an
   * executable file, in their order.
   */
  static List<String> missingFromPath(String path, List<String> binaries) {
    List<Path> dirs = new ArrayList<>();
    for (String dir : path.split(File.pathSeparator)) {
      if (!dir.isEmpty()) {
        dirs.add(Path.of(dir));
      }
    }
    return binaries.stream()
        .filter(b -> dirs.stream().noneMatch(d -> Files.isExecutable(d.resolve(b))))
        .toList();
  }

  // ---- (b) scale-out and (c) kill

  static List<Verdict> scaleOut(
      List<InFlight> readings,
      long healthyNanos,
      long fromNanos,
      long toNanos,
      int limit,
      int localShare) {
    List<Verdict> verdicts = new ArrayList<>();
    long first = TransitionsRun.firstRunning(readings, 2, healthyNanos);
    verdicts.add(
        first < 0
            ? Verdict.missed("scale-out: the joining node admitted no job while it was loaded")
            : Verdict.of(
                (first - healthyNanos) / 1e9 <= JOIN_AIM_SECONDS,
                "scale-out: the joining node ran its first job "
                    + Verdict.withAim(round((first - healthyNanos) / 1e9) + " s", "≤ 2 s")
                    + " after its /health answered"));
    int peak = TransitionsRun.clusterPeak(readings, fromNanos, toNanos, 2);
    verdicts.add(Verdict.of(
        peak <= limit + localShare,
        "scale-out: at most "
            + Verdict.withAim(
                Integer.toString(peak),
                "≤ " + (limit + localShare) + ": the global limit " + limit
                    + " plus one local share " + localShare)
            + " jobs running in the cluster at once (each node's own in-flight, polled)"));
    return verdicts;
  }

  static List<Verdict> kill(
      List<InFlight> readings, long killNanos, int limit, double windowSeconds) {
    long back = TransitionsRun.firstAtLimit(readings, 1, killNanos, limit);
    if (back < 0) {
      return List.of(Verdict.missed("kill -9: the surviving node did not reach the global limit "
          + limit + " within the " + round(windowSeconds) + " s watched (aim ≤ 5 s)"));
    }
    double seconds = (back - killNanos) / 1e9;
    return List.of(Verdict.of(
        seconds <= RECOVERY_AIM_SECONDS,
        "kill -9: the cluster back to its full global limit (" + limit + " running on the "
            + "surviving node) " + Verdict.withAim(round(seconds) + " s", "≤ 5 s")
            + " after the kill"));
  }

  // ---- (d) rolling restart and (e) reload

  /**
   * A request's tries, the last one deciding: a refused try was sent on to the other node. The
   * request is unanswered when its last try was cut, timed out, or refused.
   */
  record Request(List<Shot> tries) {
    Shot last() {
      return tries.get(tries.size() - 1);
    }

    boolean unanswered() {
      return last().failure() != Shot.Failure.NONE;
    }
  }

  static List<Verdict> rollingRestart(List<Request> requests) {
    long unanswered = requests.stream().filter(Request::unanswered).count();
    long cut = requests.stream()
        .flatMap(r -> r.tries().stream())
        .filter(s -> s.failure() == Shot.Failure.CUT)
        .count();
    long bad5xx = requests.stream().filter(r -> r.last().undocumented5xx()).count();
    long drain = requests.stream().filter(r -> r.last().drainAnswer()).count();
    return List.of(
        Verdict.of(
            unanswered == 0,
            "rolling restart: " + Verdict.withAim(Long.toString(unanswered), "0") + " of "
                + requests.size() + " requests unanswered"),
        Verdict.of(
            cut == 0,
            "rolling restart: " + Verdict.withAim(Long.toString(cut), "0")
                + " connections reset or closed under a request"),
        Verdict.of(
            bad5xx == 0,
            "rolling restart: " + Verdict.withAim(Long.toString(bad5xx), "0")
                + " 5xx other than the drain answer (503 problem+json with Retry-After, "
                + drain + " of them) and the 504 queue timeout"));
  }

  /**
   * @param sent requests sent
   * @param answered requests that got an answer
   * @param serverDecisions admissions plus refusals the node counted for them
   */
  static List<Verdict> reload(int sent, int answered, long serverDecisions, boolean applied) {
    long lost = (long) sent - answered;
    long twice = Math.max(0, serverDecisions - sent);
    List<Verdict> verdicts = new ArrayList<>();
    verdicts.add(Verdict.of(
        lost == 0 && twice == 0 && applied,
        "reload with " + (sent - 2) + " waiters: " + Verdict.withAim(Long.toString(lost), "0")
            + " lost, " + Verdict.withAim(Long.toString(twice), "0")
            + " answered twice (the node's admissions and refusals against the requests sent)"
            + (applied ? "" : "; the new strategy and discipline were not applied")));
    return verdicts;
  }
}
