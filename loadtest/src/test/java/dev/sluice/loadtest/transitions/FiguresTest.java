package dev.sluice.loadtest.transitions;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.monday.CpuTrace;
import dev.sluice.loadtest.monday.MondayLoad;
import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The verdicts of each part, on made-up tries, readings and CPU samples. */
class FiguresTest {

  private static final long S = 1_000_000_000L;
  private static final long MS = 1_000_000L;

  private static Shot answer(long sent, long millis, int status) {
    return Shot.answered(1, sent, sent + millis * MS, status, status != 200, status != 200);
  }

  private static List<Outcome> outcomes(List<Verdict> verdicts) {
    return verdicts.stream().map(Verdict::outcome).toList();
  }

  @Test
  void coldStartJudgesEarlyRefusalsTimeoutsAndTheCpuAtTenSeconds() {
    List<Shot> shots = new ArrayList<>();
    for (int i = 0; i < 96; i++) {
      shots.add(answer(i * 100L * MS, 3, 429)); // early refusals
    }
    for (int i = 0; i < 4; i++) {
      shots.add(answer(i * S, 10_000, 504)); // refused late, after waiting
    }
    shots.add(answer(0, 900, 200)); // served: not a refusal
    List<Figures.Cpu> cpu =
        List.of(new Figures.Cpu(2, 100), new Figures.Cpu(7.5, 72), new Figures.Cpu(9.5, 68));

    assertThat(TransitionsRun.earlyRefusals(shots)).isEqualTo(0.96);
    assertThat(TransitionsRun.timeoutShare(shots, 0, 60)).isEqualTo(0.04);
    List<Verdict> met = Figures.coldStart(shots, 0, 20, cpu, 70);
    assertThat(outcomes(met)).containsExactly(Outcome.MET, Outcome.MET, Outcome.MET);
    assertThat(met.get(0).text()).contains("96% (aim ≥ 95%)").contains("of 100 refusals");

    // today's cold node: every refusal waits its queue timeout and is a 504, the CPU pinned
    List<Shot> late = List.of(answer(0, 10_000, 504), answer(S, 10_000, 504), answer(S, 8, 429));
    List<Verdict> missed = Figures.coldStart(late, 0, 20, List.of(new Figures.Cpu(9, 99)), 70);
    assertThat(outcomes(missed)).containsExactly(Outcome.MISSED, Outcome.MISSED, Outcome.MISSED);
    assertThat(missed.get(0).text()).startsWith("cold start: 33%");
  }

  @Test
  void timeoutsAreCountedInTheFirstMinuteOnlyAndNothingToJudgeIsNotMeasured() {
    List<Shot> shots = List.of(answer(10 * S, 5, 429), answer(70 * S, 10_000, 504));
    assertThat(TransitionsRun.timeoutShare(shots, 0, 60)).isZero();
    assertThat(outcomes(Figures.coldStart(List.of(answer(0, 50, 200)), 0, 20, List.of(), 70)))
        .containsOnly(Outcome.NOT_MEASURED);
  }

  @Test
  void theMondayLoadsTriesBecomeShotsAndAreJudgedAsAColdStartUnderTheirOwnLabel() {
    List<MondayLoad.Try> tries = new ArrayList<>();
    // a cold ffmpeg node: 40 key-cap and predicted-wait refusals at once, one that waited its
    // queue timeout, two served, a reset and one still transcoding when the load stopped
    for (int i = 0; i < 40; i++) {
      tries.add(new MondayLoad.Try(i * 200L * MS, i * 200L * MS + 4 * MS, 429, "429", true, true));
    }
    tries.add(new MondayLoad.Try(S, 11 * S, 504, "504", false, true));
    tries.add(new MondayLoad.Try(0, 6 * S, 200, "200", false, false));
    tries.add(new MondayLoad.Try(2 * S, 9 * S, 200, "200", false, false));
    tries.add(new MondayLoad.Try(3 * S, 3 * S + MS, -1, "reset", false, false));
    tries.add(new MondayLoad.Try(5 * S, 35 * S, -1, "open", false, false));

    List<Shot> shots = TransitionsRun.shots(tries);

    assertThat(shots).hasSize(45);
    assertThat(shots.get(0)).isEqualTo(Shot.answered(1, 0, 4 * MS, 429, true, true));
    assertThat(shots.get(43).failure()).isEqualTo(Shot.Failure.CUT);
    assertThat(shots.get(44).failure()).isEqualTo(Shot.Failure.TIMEOUT);
    assertThat(shots.stream().filter(Shot::refusal).count()).isEqualTo(41);
    // 40 of 41 refusals early (97.6%), 1 of 41 a 504 (2.4%); the machine at 80% in 7-10 s
    CpuTrace trace = new CpuTrace(List.of(
        new CpuTrace.Sample(1, 1, 100),
        new CpuTrace.Sample(8, 1, 78),
        new CpuTrace.Sample(9, 1, 80),
        new CpuTrace.Sample(10, 1, 82),
        new CpuTrace.Sample(11, 1, 99)));
    List<Figures.Cpu> cpu = TransitionsRun.machineCpu(trace);
    assertThat(cpu)
        .containsExactly(
            new Figures.Cpu(1, 100),
            new Figures.Cpu(8, 78),
            new Figures.Cpu(9, 80),
            new Figures.Cpu(10, 82),
            new Figures.Cpu(11, 99));
    List<Verdict> met = Figures.coldStart("cold start (ffmpeg)", shots, 0, 20, cpu, 70);
    assertThat(outcomes(met)).containsExactly(Outcome.MET, Outcome.MET, Outcome.MET);
    assertThat(met).allSatisfy(v -> assertThat(v.text()).startsWith("cold start (ffmpeg): "));
    assertThat(met.get(0).text()).contains("98% (aim ≥ 95%)").contains("of 41 refusals");
    assertThat(met.get(2).text()).contains("CPU 80% of the machine");

    // the same node pinned at 99% by the end of 10 s misses the band
    List<Verdict> hot =
        Figures.coldStart("cold start (ffmpeg)", shots, 0, 20, List.of(new Figures.Cpu(9, 99)), 70);
    assertThat(outcomes(hot).get(2)).isEqualTo(Outcome.MISSED);
  }

  @Test
  void binariesMissingFromPathAreNamedInOrder(@TempDir Path dir) throws IOException {
    Path bin = Files.createDirectories(dir.resolve("bin"));
    Path ffmpeg = Files.createFile(bin.resolve("ffmpeg"));
    Files.setPosixFilePermissions(ffmpeg, PosixFilePermissions.fromString("rwxr-xr-x"));
    Files.createFile(bin.resolve("ffprobe")); // there, but not executable
    String path = dir.resolve("empty") + File.pathSeparator + bin;

    assertThat(Figures.missingFromPath(path, List.of("ffmpeg", "ffprobe")))
        .containsExactly("ffprobe");
    assertThat(Figures.missingFromPath("", List.of("ffmpeg", "ffprobe")))
        .containsExactly("ffmpeg", "ffprobe");
    assertThat(Figures.missingFromPath(bin.toString(), List.of("ffmpeg"))).isEmpty();
  }

  @Test
  void scaleOutJudgesTheJoinDelayAndTheClusterPeak() {
    long healthy = 10 * S;
    List<Figures.InFlight> readings = List.of(
        new Figures.InFlight(9 * S, 1, 4, 20),
        new Figures.InFlight(healthy + 100 * MS, 1, 4, 20),
        new Figures.InFlight(healthy + 150 * MS, 2, 0, 0),
        new Figures.InFlight(healthy + 1_200 * MS, 1, 3, 20),
        new Figures.InFlight(healthy + 1_250 * MS, 2, 2, 3), // 5 running: limit 4 + share 2 ok
        new Figures.InFlight(healthy + 1_300 * MS, 1, 4, 20)); // 6 with node 2's last
    List<Verdict> verdicts = Figures.scaleOut(readings, healthy, healthy, 20 * S, 4, 2);
    assertThat(outcomes(verdicts)).containsExactly(Outcome.MET, Outcome.MET);
    assertThat(verdicts.get(0).text()).contains("1.3 s (aim ≤ 2 s)");
    assertThat(TransitionsRun.clusterPeak(readings, healthy, 20 * S, 2)).isEqualTo(6);

    List<Figures.InFlight> over = new ArrayList<>(readings);
    over.add(new Figures.InFlight(healthy + 1_400 * MS, 2, 3, 0)); // 4 + 3 = 7 > 6
    over.add(new Figures.InFlight(healthy + 5 * S, 2, 1, 0));
    assertThat(outcomes(Figures.scaleOut(over, healthy, healthy, 20 * S, 4, 2)))
        .containsExactly(Outcome.MET, Outcome.MISSED);

    List<Figures.InFlight> slowJoin = List.of(new Figures.InFlight(healthy + 3 * S, 2, 1, 0));
    assertThat(outcomes(Figures.scaleOut(slowJoin, healthy, healthy, 20 * S, 4, 2)))
        .containsExactly(Outcome.MISSED, Outcome.MET);
    assertThat(outcomes(Figures.scaleOut(List.of(), healthy, healthy, 20 * S, 4, 2))
            .get(0))
        .isEqualTo(Outcome.MISSED);
  }

  @Test
  void killJudgesTheTimeUntilTheSurvivorRunsTheWholeGlobalLimit() {
    long kill = 30 * S;
    List<Figures.InFlight> readings = List.of(
        new Figures.InFlight(kill - S, 1, 4, 20), // before the kill: not counted
        new Figures.InFlight(kill + S, 1, 2, 20),
        new Figures.InFlight(kill + 4 * S, 1, 4, 20));
    List<Verdict> back = Figures.kill(readings, kill, 4, 30);
    assertThat(outcomes(back)).containsExactly(Outcome.MET);
    assertThat(back.get(0).text()).contains("4 s (aim ≤ 5 s)");

    List<Figures.InFlight> slow = List.of(
        new Figures.InFlight(kill + S, 1, 2, 20), new Figures.InFlight(kill + 27 * S, 1, 4, 20));
    assertThat(Figures.kill(slow, kill, 4, 30).get(0).text()).contains("27 s");
    assertThat(outcomes(Figures.kill(slow, kill, 4, 30))).containsExactly(Outcome.MISSED);
    assertThat(Figures.kill(List.of(), kill, 4, 10).get(0).text()).contains("within the 10 s");
  }

  @Test
  void rollingRestartCountsUnansweredCutAndUndocumented5xxButNotTheDrainAnswer() {
    Shot refused = Shot.failed(1, 0, MS, Shot.Failure.REFUSED);
    Shot drain = Shot.answered(2, 0, MS, 503, true, true);
    Shot queueTimeout = Shot.answered(2, 0, MS, 504, false, true);
    List<Figures.Request> clean = List.of(
        new Figures.Request(List.of(refused, answer(0, 5, 200))), // refused, sent on: answered
        new Figures.Request(List.of(drain)),
        new Figures.Request(List.of(queueTimeout)));
    assertThat(outcomes(Figures.rollingRestart(clean))).containsOnly(Outcome.MET);

    Shot cut = Shot.failed(1, 0, MS, Shot.Failure.CUT);
    Shot html503 = Shot.answered(1, 0, MS, 503, false, false);
    Shot bothRefused = Shot.failed(2, 0, MS, Shot.Failure.REFUSED);
    List<Figures.Request> broken = List.of(
        new Figures.Request(List.of(cut)),
        new Figures.Request(List.of(html503)),
        new Figures.Request(List.of(refused, bothRefused)));
    List<Verdict> verdicts = Figures.rollingRestart(broken);
    assertThat(outcomes(verdicts)).containsOnly(Outcome.MISSED);
    assertThat(verdicts.get(0).text()).startsWith("rolling restart: 2 (aim 0) of 3");
    assertThat(verdicts.get(1).text()).startsWith("rolling restart: 1 (aim 0)");
    assertThat(verdicts.get(2).text()).startsWith("rolling restart: 1 (aim 0)");
  }

  @Test
  void reloadFindsLostAndDoublyAnsweredWaiters() {
    assertThat(outcomes(Figures.reload(42, 42, 42, true))).containsExactly(Outcome.MET);
    assertThat(Figures.reload(42, 41, 42, true).get(0).text()).contains("1 (aim 0) lost");
    assertThat(Figures.reload(42, 42, 43, true).get(0).text()).contains("1 (aim 0) answered twice");
    assertThat(outcomes(Figures.reload(42, 42, 42, false))).containsExactly(Outcome.MISSED);
  }

  @Test
  void aRefusedConnectIsToldApartFromACutAndATimeout() {
    assertThat(Balancer.failure(
            new java.util.concurrent.CompletionException(new java.net.ConnectException("x"))))
        .isEqualTo(Shot.Failure.REFUSED);
    assertThat(Balancer.failure(new java.net.http.HttpTimeoutException("x")))
        .isEqualTo(Shot.Failure.TIMEOUT);
    assertThat(
            Balancer.failure(new java.io.IOException("HTTP/1.1 header parser received no bytes")))
        .isEqualTo(Shot.Failure.CUT);
  }
}
