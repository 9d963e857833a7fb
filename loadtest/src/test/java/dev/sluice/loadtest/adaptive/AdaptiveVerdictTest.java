package dev.sluice.loadtest.adaptive;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.loadtest.report.Verdict;
import dev.sluice.loadtest.sampling.Spread;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The report opens each mix with a verdict: adaptive variants against the static limit. */
class AdaptiveVerdictTest {

  private static AdaptiveResult result(String variant, double load, double cpu, double goodput) {
    Spread spread = new Spread(30, cpu, 3, cpu - 4, cpu + 4);
    return new AdaptiveResult(
        "cpu",
        variant,
        variant,
        "transcode",
        load,
        2,
        20,
        10,
        7,
        5,
        55,
        spread,
        spread,
        goodput,
        goodput / 7,
        1000,
        600,
        300,
        10,
        0,
        4,
        30,
        1800,
        spread,
        "1 / 1 / 1",
        "2 / 2 / 2",
        null,
        null);
  }

  @Test
  void eachAdaptiveVariantIsSetAgainstTheStaticLimitAtTheSameLoad() {
    List<Verdict> lines = AdaptiveReport.verdict(List.of(
        result("fixed", 2, 53.5, 5.0), result("cpu", 2, 69.7, 6.8),
        result("fixed", 5, 50.0, 5.0), result("latency", 5, 80.0, 4.5)));

    assertThat(lines)
        .containsExactly(
            Verdict.met(
                "at 2x: cpu held 69.7 % CPU against fixed's 53.5 %, goodput +36 % (on target)"),
            Verdict.missed(
                "at 5x: latency held 80.0 % CPU against fixed's 50.0 %, goodput -10 % (off target)"));
  }

  @Test
  void withoutAStaticRunEachVariantStandsAlone() {
    assertThat(AdaptiveReport.verdict(List.of(result("cpu", 2, 70.0, 7.0))))
        .containsExactly(
            Verdict.met("at 2x: cpu held 70.0 % CPU, goodput 100% of target (on target)"));
  }
}
