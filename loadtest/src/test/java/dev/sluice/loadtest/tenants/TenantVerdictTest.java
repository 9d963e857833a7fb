package dev.sluice.loadtest.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.report.Verdict.Outcome;
import dev.sluice.loadtest.sampling.Percentiles;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** greedy-host and priority open with one headline per variant, set against fifo. */
class TenantVerdictTest {

  private static final Percentiles WAIT = new Percentiles(10, 5, 8, 9, 9, 9);

  private static GreedyHostFigures greedyHost(
      String variant, double jain, double politeMin, long below90, List<String> ignored) {
    GreedyHostFigures.Host greedy = new GreedyHostFigures.Host(true, 500, 40, 20, 2.0, 300, 0);
    return new GreedyHostFigures(
        variant,
        ignored,
        Map.of(GreedyHostTraffic.GREEDY_HOST, greedy),
        jain,
        jain,
        politeMin,
        below90,
        WAIT,
        WAIT,
        300,
        12,
        new GreedyHostFigures.Rescue(10, 10, 0, Map.of(), WAIT, WAIT),
        ignored.isEmpty() && jain >= 0.95 && below90 == 0);
  }

  private static PriorityFigures priority(String variant, long criticalServed, long critical429) {
    PriorityFigures.Kind critical = new PriorityFigures.Kind(
        12, criticalServed, 12 - criticalServed, critical429, 0, 0, Map.of(), WAIT, WAIT);
    PriorityFigures.Kind sheddable =
        new PriorityFigures.Kind(900, 560, 340, 800, 20, 0, Map.of(), WAIT, WAIT);
    boolean met = critical429 == 0 && criticalServed == 12;
    return new PriorityFigures(variant, List.of(), critical, sheddable, 1.2, met);
  }

  @Test
  void aFairQueueMeetsTheAimAndIsSetAgainstFifo() {
    List<Verdict> verdicts = TenantVerdict.of(List.of(
        greedyHost("fifo", 0.62, 0.41, 25, List.of()),
        greedyHost("fair", 0.97, 0.93, 0, List.of())));

    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.MISSED);
    assertThat(verdicts.get(0).text())
        .startsWith("fifo: Jain's index 0.62 (aim ≥ 0.95); lowest polite host 41% of its fair"
            + " share (aim ≥ 90%); 25 polite hosts under 90%");
    assertThat(verdicts.get(1).outcome()).isEqualTo(Outcome.MET);
    assertThat(verdicts.get(1).text())
        .isEqualTo("fair: Jain's index 0.97 (aim ≥ 0.95); lowest polite host 93% of its fair"
            + " share (aim ≥ 90%) against fifo's 0.62 and 41%; 0 polite hosts under 90%; greedy host"
            + " 200% of its fair share; rescue 10 of 10 served");
  }

  @Test
  void aVariantTheServiceDidNotRunAsDescribedIsRedAndSaysWhy() {
    Verdict v = TenantVerdict.of(
            List.of(greedyHost("fair", 0.99, 0.95, 0, List.of("sluice.limiters.t.queue"))))
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(v.text()).endsWith("; the service ignored sluice.limiters.t.queue (aim none)");
  }

  @Test
  void noServedHostMeansFairnessWasNotMeasured() {
    Verdict v = TenantVerdict.of(List.of(greedyHost("fair", Double.NaN, Double.NaN, 0, List.of())))
        .get(0);

    assertThat(v.outcome()).isEqualTo(Outcome.NOT_MEASURED);
    assertThat(v.text()).isEqualTo("fair: fairness not measured (no maintenance host was served)");
  }

  @Test
  void priorityClassesServeEveryCriticalJobWhileSheddableOnesAreShed() {
    List<Verdict> verdicts =
        TenantVerdict.of(List.of(priority("fifo", 7, 9), priority("classes", 12, 0)));

    assertThat(verdicts.get(0).outcome()).isEqualTo(Outcome.MISSED);
    assertThat(verdicts.get(0).text())
        .startsWith("fifo: critical 7 of 12 served (aim all); 9 critical tries answered other"
            + " than 200 (aim 0); ");
    assertThat(verdicts.get(1).outcome()).isEqualTo(Outcome.MET);
    assertThat(verdicts.get(1).text())
        .isEqualTo("classes: critical 12 of 12 served (aim all); 0 critical tries answered other"
            + " than 200 (aim 0) against fifo's 7 of 12 and 9; 340 of 900 sheddable jobs"
            + " shed (aim some); critical queue wait p99 1.2x one service time");
  }

  @Test
  void jainsIndexExactlyAtItsAimIsMetAndOnePoliteHostUnder90IsMissed() {
    Verdict atAim =
        TenantVerdict.of(List.of(greedyHost("fair", 0.95, 0.90, 0, List.of()))).get(0);
    Verdict oneUnder =
        TenantVerdict.of(List.of(greedyHost("fair", 0.99, 0.89, 1, List.of()))).get(0);

    assertThat(atAim.outcome()).isEqualTo(Outcome.MET);
    assertThat(oneUnder.outcome()).isEqualTo(Outcome.MISSED);
    assertThat(oneUnder.text()).contains("lowest polite host 89% of its fair share (aim ≥ 90%)");
  }
}
