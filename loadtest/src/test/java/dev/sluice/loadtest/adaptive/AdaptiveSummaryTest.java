package dev.sluice.loadtest.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import dev.sluice.loadtest.Options;
import dev.sluice.loadtest.engine.Accounting;
import dev.sluice.loadtest.engine.TrafficStream;
import dev.sluice.loadtest.engine.Workload;
import dev.sluice.loadtest.report.HtmlRenderer;
import dev.sluice.loadtest.sampling.Percentiles;
import dev.sluice.loadtest.sampling.RunSummary;
import dev.sluice.loadtest.sampling.ServerSample;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The adaptive comparison's figures, mixes, variants and report, from made-up runs (no service). */
class AdaptiveSummaryTest {

  /** A 10 s run on 2 cores: CPU and limit once a second, 200s and 429s per second. */
  private static RunSummary run(double[] cpu, int[] limit, long[] ok) {
    List<ServerSample> samples = new ArrayList<>();
    for (int s = 0; s < cpu.length; s++) {
      samples.add(new ServerSample(
          s + 0.01, cpu[s], 90, Map.of("transcode", new ServerSample.LimiterLoad(1, 3, limit[s]))));
    }
    Accounting accounting = new Accounting(
        Map.of("transcode", 100L),
        Map.of("transcode", Map.of("200", 60L, "429", 36L, "504", 2L, "unfinished", 2L)),
        100,
        0,
        0,
        Map.of("200", 60L, "429", 36L, "504", 2L),
        2);
    Map<String, long[]> perSecond = new TreeMap<>();
    perSecond.put("200", ok);
    return new RunSummary(
        "cpu, 2x, cpu",
        "adaptive/cpu",
        "http://x/",
        1,
        10,
        20,
        200,
        2,
        201,
        accounting,
        Map.of(
            "transcode 429",
            new Percentiles(36, 4, 9, 30, 31, 31),
            "transcode 200",
            new Percentiles(60, 500, 900, 1800, 1900, 1900)),
        Map.of(),
        Map.of(),
        RunSummary.Cpu.of(samples, 10),
        samples,
        perSecond);
  }

  @Test
  void figuresAreOverTheSteadyWindowAfterTheFirstFifth() {
    double[] cpu = {100, 100, 66, 74, 66, 74, 66, 74, 66, 74, 10};
    int[] limit = {9, 9, 1, 2, 1, 2, 1, 2, 1, 2, 0};
    long[] ok = {50, 50, 7, 7, 7, 7, 7, 7, 7, 7, 50, 50};
    JobMix mix = JobMix.CPU;
    AdaptiveVariant variant = AdaptiveVariant.parse("--variants", "cpu", 2).get(0);

    AdaptiveResult r =
        AdaptiveResult.of(mix, variant, 2, run(cpu, limit, ok), "1 / 2 / 3", "4 / 5 / 6");

    // seconds 2..10 of a 10 s run: the warm-up readings (100 %, limit 9) and the drain are left out
    assertThat(r.steadyFromSecond()).isEqualTo(2);
    assertThat(r.processCpu().n()).isEqualTo(8);
    assertThat(r.processCpu().mean()).isCloseTo(70, within(1e-9));
    assertThat(r.processCpu().stddev()).isCloseTo(4, within(1e-9));
    assertThat(r.processCpu().p10()).isEqualTo(66);
    assertThat(r.processCpu().p90()).isEqualTo(74);
    assertThat(r.cpuOnTarget()).isTrue();
    assertThat(r.limit().mean()).isEqualTo(1.5);
    // 7 jobs a second of 200 ms on 2 cores: exactly the capacity at 70 % (10/s at 100 %)
    assertThat(r.capacityPerSecond()).isEqualTo(10);
    assertThat(r.targetCapacityPerSecond()).isEqualTo(7);
    assertThat(r.goodputPerSecond()).isEqualTo(7);
    assertThat(r.goodputOfTarget()).isEqualTo(1);
    assertThat(r.ok()).isEqualTo(60);
    assertThat(r.rejected()).isEqualTo(36);
    assertThat(r.timedOut()).isEqualTo(2);
    assertThat(r.other()).isEqualTo(2);
    assertThat(r.timedOutShareOfRejections()).isCloseTo(2 / 38.0, within(1e-9));
    assertThat(r.rejectedMillisP50()).isEqualTo(4);
    assertThat(r.rejectedMillisP99()).isEqualTo(30);
    assertThat(r.admittedMillisP99()).isEqualTo(1800);
    assertThat(r.loadAverageAfter()).isEqualTo("4 / 5 / 6");

    String html = HtmlRenderer.render(AdaptiveReport.of(
        List.of(
            r,
            AdaptiveResult.failed(
                mix,
                AdaptiveVariant.parse("--variants", "latency", 2).get(0),
                2,
                "1 / 1 / 1",
                "the service does not know [sluice.limiters.transcode.limit]")),
        60));
    assertThat(html)
        .startsWith("<!DOCTYPE html>")
        .contains("<h2>mix cpu</h2>")
        .contains("<svg")
        .contains("<td>1.5</td>")
        .contains("<td class=\"met\">70.0</td>")
        .contains("not run: the service does not know [sluice.limiters.transcode.limit]");
  }

  @Test
  void mixesSendTheirJobShapesAtAMultipleOfTheCapacityTriedOnce() {
    assertThat(JobMix.parse("--mix", "all")).containsExactly(JobMix.CPU, JobMix.SIZES, JobMix.IO);
    assertThat(JobMix.parse("--mix", "io, cpu")).containsExactly(JobMix.IO, JobMix.CPU);
    assertThatThrownBy(() -> JobMix.parse("--mix", "cpu,disk"))
        .hasMessageContaining("--mix")
        .hasMessageContaining("'cpu,disk'")
        .hasMessageContaining("sizes");

    Random random = new Random(7);
    assertThat(JobMix.CPU.path(random)).isEqualTo("/api/transcode?cpuMillis=200");
    assertThat(JobMix.IO.path(random)).isEqualTo("/api/transcode?cpuMillis=50&waitMillis=250");
    long longJobs = 0;
    for (int i = 0; i < 1000; i++) {
      String path = JobMix.SIZES.path(random);
      assertThat(path).isIn("/api/transcode?cpuMillis=50", "/api/transcode?cpuMillis=800");
      longJobs += path.endsWith("=800") ? 1 : 0;
    }
    assertThat(longJobs).isBetween(400L, 600L);
    assertThat(JobMix.SIZES.capacity(2)).isCloseTo(2000 / 425.0, within(1e-9));
    assertThat(JobMix.IO.capacity(2)).isEqualTo(40);

    Workload workload = JobMix.IO.workload(5);
    assertThat(workload.id()).isEqualTo("adaptive/io");
    assertThat(workload.maxAttempts()).isEqualTo(1);
    assertThat(workload.rate().applyAsDouble(2)).isEqualTo(200);
    List<TrafficStream> streams = workload.streams().apply(200.0, Duration.ofSeconds(3));
    assertThat(streams).hasSize(1);
    assertThat(streams.get(0).callers()).isEqualTo(JobMix.HOSTS);
    assertThat(streams.get(0).headers().apply(0))
        .containsEntry("X-Account-Id", "maintenance-host-01");
  }

  @Test
  void variantsSetTheDemosPropertiesAndAnIgnoredPropertyMeansTheVariantDidNotRun() {
    List<AdaptiveVariant> variants =
        AdaptiveVariant.parse("--variants", AdaptiveVariant.DEFAULT_NAMES, 8);
    assertThat(variants)
        .extracting(AdaptiveVariant::name)
        .containsExactly("fixed", "cpu", "latency", "netflix-gradient2");
    assertThat(variants.get(0).serverProperties())
        .contains(
            "sluice.limiters.transcode.limit=fixed", "sluice.limiters.transcode.max-concurrency=6");
    assertThat(variants.get(1).serverProperties())
        .contains(
            "sluice.limiters.transcode.limit=cpu",
            "sluice.limiters.transcode.target-cpu=0.7",
            "sluice.limiters.transcode.reject-early=true");
    assertThat(variants.get(3).serverProperties())
        .containsExactly("demo.limiter-peer=netflix-gradient2");
    assertThat(variants.get(3).limiterName()).isEqualTo("netflix-gradient2");
    assertThatThrownBy(() -> AdaptiveVariant.parse("--variants", "cpu,aimd", 2))
        .hasMessageContaining("--variants")
        .hasMessageContaining("'cpu,aimd'");

    String log =
        "WARN d.s.j.SluicePlugin Unknown Sluice property 'sluice.limiters.transcode.limit' "
            + "(from system) is ignored";
    assertThat(AdaptiveRun.ignoredKeys(log, variants.get(1)))
        .containsExactly("sluice.limiters.transcode.limit");
    assertThat(AdaptiveRun.ignoredKeys("all known", variants.get(1))).isEmpty();
    assertThat(AdaptiveRun.ignoredKeys(log, variants.get(3))).isEmpty();
    // /sluice must show the limiter under the variant's strategy
    String sluice = "{\"limiters\":[{\"name\":\"transcode\",\"limit\":3,\"limitKind\":\"fixed\"}]}";
    assertThat(AdaptiveRun.wrongStrategy(sluice, variants.get(0))).isEmpty();
    assertThat(AdaptiveRun.wrongStrategy(sluice, variants.get(1)).orElseThrow())
        .contains("runs strategy fixed, not cpu");
    assertThat(AdaptiveRun.wrongStrategy(sluice, variants.get(3)).orElseThrow())
        .contains("no limiter netflix-gradient2");
    assertThat(
            AdaptiveRun.wrongStrategy("{\"limiters\":[{\"name\":\"transcode\"}]}", variants.get(1)))
        .isEmpty(); // a service without the field: the log check alone
    // a plugin without adaptive limits is a fixed limit without early rejection: fixed is still
    // fixed
    assertThat(AdaptiveRun.ignoredKeys(
            log + "\nUnknown Sluice property "
                + "'sluice.limiters.transcode.reject-early' (from system) is ignored",
            variants.get(0)))
        .isEmpty();
  }

  @Test
  void theAdaptiveScenarioTakesItsOptionsAndNeedsEmbedded() {
    Options o = Options.parse(
        "--embedded",
        "--scenario",
        "adaptive",
        "--mix",
        "sizes",
        "--overload",
        "2,5",
        "--variants",
        "cpu,netflix-vegas");
    assertThat(o.experiment()).isInstanceOf(AdaptiveRun.class);
    assertThat(o.mixes()).containsExactly(JobMix.SIZES);
    assertThat(o.overloads()).containsExactly(2.0, 5.0);
    assertThat(o.adaptiveVariants()).isEqualTo("cpu,netflix-vegas");
    Options defaults = Options.parse("--embedded", "--scenario", "adaptive");
    assertThat(defaults.mixes()).containsExactly(JobMix.values());
    assertThat(defaults.overloads()).containsExactly(2.0, 5.0);
    assertThatThrownBy(() -> Options.parse("--target", "http://x", "--scenario", "adaptive"))
        .hasMessageContaining("--embedded");
    assertThatThrownBy(() -> Options.parse("--embedded", "--overload", "2,x"))
        .hasMessageContaining("--overload")
        .hasMessageContaining("'x'");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "adaptive", "--variants", "bbr"))
        .hasMessageContaining("--variants")
        .hasMessageContaining("bbr");
  }
}
