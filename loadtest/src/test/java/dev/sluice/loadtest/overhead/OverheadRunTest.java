package dev.sluice.loadtest.overhead;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OverheadRunTest {

  @TempDir
  Path dir;

  @Test
  void overAsManyRoundsAsServicesEachGoesFirstOnceAndEveryRoundRunsEachOnce() {
    int count = 5;
    Set<Integer> firsts = new HashSet<>();
    for (int round = 0; round < count; round++) {
      List<Integer> order = OverheadRun.order(round, count);
      assertThat(order).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
      firsts.add(order.get(0));
    }
    assertThat(firsts).containsExactlyInAnyOrder(0, 1, 2, 3, 4);
    assertThat(OverheadRun.order(7, count)).isEqualTo(OverheadRun.order(2, count));
  }

  @Test
  void aRoundRunsItsOrderAndThenTheSameBackwards() {
    assertThat(OverheadRun.palindrome(1, 3)).containsExactly(1, 2, 0, 0, 2, 1);
    assertThat(OverheadRun.palindrome(0, 1)).containsExactly(0, 0);
  }

  @Test
  void theVariantsStartWithTheBaselineAndTheRateVariantReadsTheRuleWrittenForIt()
      throws IOException {
    Path rules = dir.resolve("rules.yaml");
    OverheadVariant.writeRules(rules);
    List<OverheadVariant> variants = OverheadVariant.all(rules);
    assertThat(variants)
        .extracting(OverheadVariant::name)
        .containsExactly(
            "none",
            "sluice-limiter",
            "sluice-rate",
            "sluice-rate-bare",
            "ratelimitplugin",
            "qos",
            "javalin-handlers");
    assertThat(variants.get(3).serverProperties())
        .contains("sluice.headers.ratelimit=false", "sluice.headers.x-ratelimit=false");
    assertThat(variants.get(0).name()).isEqualTo(OverheadVariant.BASELINE);
    assertThat(variants.get(0).serverProperties()).containsExactly("sluice.enabled=false");
    assertThat(variants.get(2).serverProperties())
        .contains("sluice.rules.file=" + rules.toAbsolutePath());
    assertThat(Files.readString(rules))
        .contains("resource: " + OverheadVariant.ENDPOINT)
        .contains("actor: ip");
    // the peers run without Sluice, so each row measures one limiter
    assertThat(variants.subList(4, 7))
        .allSatisfy(v -> assertThat(v.serverProperties())
            .contains("sluice.enabled=false")
            .anyMatch(p -> p.startsWith("demo.overhead-peer=")));
  }

  /**
   * Services whose CPU per request is scripted: each drive of service {@code v} serves 1,000
   * requests, and its process's CPU grows by the machine's swing of that round times its own cost.
   */
  private static final class Scripted implements OverheadRun.Generator {
    final double[] costs;
    final double noise;
    final java.util.Random random = new java.util.Random(11);
    final long[] cpu;
    int drives;
    double swing = 1;
    double drift = 1;

    Scripted(double noise, double... costs) {
      this.costs = costs;
      this.noise = noise;
      this.cpu = new long[costs.length];
    }

    List<OverheadRun.Service> services() {
      List<OverheadRun.Service> services = new java.util.ArrayList<>();
      for (int v = 0; v < costs.length; v++) {
        services.add(new OverheadRun.Service(
            URI.create("http://127.0.0.1:" + (1000 + v) + "/"), v, p -> -1, p -> cpu[(int) p]));
      }
      return services;
    }

    @Override
    public String describe() {
      return "scripted";
    }

    @Override
    public OverheadRun.Round drive(URI base, Duration length) {
      int v = base.getPort() - 1000;
      if (drives++ % (2 * costs.length) == 0) {
        swing = 0.7 + 0.6 * random.nextDouble(); // the machine changes between rounds
      }
      swing *= drift; // and, on a drifting machine, from one slice to the next
      double own = 1 + noise * random.nextGaussian();
      cpu[v] += (long) (1_000 * 40_000 * costs[v] * swing * own); // 40 µs per request at 1.0
      return new OverheadRun.Round(1_000, 0, 1, 1, 2);
    }
  }

  private static List<OverheadVariant> variants(int count) {
    return OverheadVariant.all(Path.of("rules.yaml")).subList(0, count);
  }

  @Test
  void pairedRoundsTellThreePercentThroughASwingingMachineInTheFirstRounds() throws Exception {
    Scripted services = new Scripted(0.005, 1.0, 1.03, 0.97);

    OverheadRun.Result result =
        OverheadRun.run(variants(3), services.services(), services, 7, 28, Duration.ofMillis(1));

    assertThat(result.rounds()).as("precise enough after the rounds always run").isEqualTo(7);
    OverheadRun.Side dearer = result.sides().get(1);
    assertThat(dearer.cpuPaired().ratio())
        .isCloseTo(1.03, org.assertj.core.api.Assertions.within(0.01));
    assertThat(dearer.cpuPaired().excludes(1.0)).isTrue();
    assertThat(dearer.cpuPaired().halfWidth()).isLessThanOrEqualTo(OverheadRun.PRECISION);
    assertThat(dearer.cpuRatioHigh() - dearer.cpuRatioLow())
        .as("the rounds' own range, against the baseline's median, is many times wider")
        .isGreaterThan(0.2);
  }

  @Test
  void aLoadRisingThroughEveryRoundChargesEveryServiceAlike() throws Exception {
    // no noise, but the machine gets 4% slower with every slice: run one after the other, the
    // service measured last in a round would pay for it
    Scripted drifting = new Scripted(0, 1.0, 1.0, 1.0, 1.0);
    drifting.drift = 1.04;

    OverheadRun.Result result =
        OverheadRun.run(variants(4), drifting.services(), drifting, 7, 7, Duration.ofMillis(1));

    assertThat(result.secondsPerRound())
        .as("what the generator drove (two slices of 1 s each), not what was asked")
        .isEqualTo(2.0);

    for (OverheadRun.Side side : result.sides().subList(1, 4)) {
      assertThat(side.cpuPaired().ratio())
          .as(side.variant())
          .isCloseTo(1.0, org.assertj.core.api.Assertions.within(0.005));
    }
  }

  @Test
  void roundsAreAddedWhileAnIntervalIsWiderThanTwoPercentUpToTheMost() throws Exception {
    Scripted noisy = new Scripted(0.08, 1.0, 1.03);

    OverheadRun.Result result =
        OverheadRun.run(variants(2), noisy.services(), noisy, 7, 12, Duration.ofMillis(1));

    assertThat(result.rounds()).isEqualTo(12);
    assertThat(result.sides().get(1).cpuPerRound()).hasSize(12);
    assertThat(result.sides().get(1).cpuPaired().rounds()).isEqualTo(12);
  }

  @Test
  void aServiceListThatDoesNotMatchTheVariantsIsRefused() {
    List<OverheadVariant> variants = OverheadVariant.all(dir.resolve("rules.yaml"));
    assertThatThrownBy(() -> OverheadRun.run(
            variants,
            List.of(new OverheadRun.Service(URI.create("http://127.0.0.1:1/"), 1)),
            OverheadRun.generator(),
            1,
            1,
            Duration.ofMillis(10)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("7 variants, 1 services");
  }

  @Test
  void variantsPicksASubsetAfterTheBaselineAndRefusesAnUnknownNameListingTheKnownOnes() {
    List<OverheadVariant> all = OverheadVariant.all(dir.resolve("rules.yaml"));
    assertThat(OverheadVariant.select(
            all, Optional.of("sluice-rate, qos,sluice-rate"), Optional.empty()))
        .extracting(OverheadVariant::name)
        .containsExactly("none", "sluice-rate", "qos");
    assertThat(OverheadVariant.select(all, Optional.of("none"), Optional.empty()))
        .extracting(OverheadVariant::name)
        .containsExactly("none");
    assertThat(OverheadVariant.select(all, Optional.empty(), Optional.empty())).isEqualTo(all);
    assertThatThrownBy(
            () -> OverheadVariant.select(all, Optional.of("sluice,qos"), Optional.empty()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'sluice'")
        .hasMessageContaining("sluice-limiter, sluice-rate");
  }

  @Test
  void anEarlierBuildRunsEachSluiceVariantAgainFromItsJarAndNoPeer() throws IOException {
    List<OverheadVariant> all = OverheadVariant.all(dir.resolve("rules.yaml"));
    Path jar = Files.writeString(dir.resolve("loadtest-before.jar"), "not really a jar");
    List<OverheadVariant> chosen =
        OverheadVariant.select(all, Optional.of("sluice-limiter,qos"), Optional.of(jar));
    assertThat(chosen)
        .extracting(OverheadVariant::name)
        .containsExactly("none", "sluice-limiter", "qos", "sluice-limiter@before");
    assertThat(chosen.get(3).classPath()).contains(jar.toAbsolutePath());
    assertThat(chosen.get(3).serverProperties()).isEqualTo(chosen.get(1).serverProperties());
    assertThat(chosen.subList(0, 3)).allSatisfy(v -> assertThat(v.classPath()).isEmpty());
    assertThatThrownBy(() ->
            OverheadVariant.select(all, Optional.empty(), Optional.of(dir.resolve("missing.jar"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("--before-jar")
        .hasMessageContaining("missing.jar");
  }

  @Test
  void bytesPerRequestNeedBothReadingsAndARequest() {
    assertThat(ServerAllocation.perRequest(1_000, 41_000, 10)).isEqualTo(4_000);
    assertThat(ServerAllocation.perRequest(-1, 41_000, 10)).isNaN();
    assertThat(ServerAllocation.perRequest(1_000, -1, 10)).isNaN();
    assertThat(ServerAllocation.perRequest(1_000, 41_000, 0)).isNaN();
    assertThat(ServerAllocation.perRequest(41_000, 1_000, 10)).isNaN();
  }

  @Test
  void theServerAllocationOfAJvmIsReadOverItsManagementAgent() throws Exception {
    // this test's own JVM cannot attach to itself, so a child JVM stands in for the server
    Process child = new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-cp",
            System.getProperty("java.class.path"),
            Sleeper.class.getName())
        .start();
    // attaching to a JVM still starting up fails: wait until its main method has begun
    try (java.io.BufferedReader ready = new java.io.BufferedReader(new java.io.InputStreamReader(
            child.getInputStream(), java.nio.charset.StandardCharsets.UTF_8));
        ServerAllocation allocation = new ServerAllocation()) {
      assertThat(ready.readLine()).isEqualTo(Sleeper.READY);
      long first = allocation.bytes(child.pid());
      long second = allocation.bytes(child.pid());
      assertThat(first).isPositive();
      assertThat(second).isGreaterThanOrEqualTo(first);
      assertThat(allocation.bytes(Long.MAX_VALUE)).isEqualTo(-1);
    } finally {
      child.destroyForcibly().waitFor();
    }
  }

  /**
   * The child JVM of the test above: says it is up, then waits on its standard input until it is
   * killed.
   */
  static final class Sleeper {
    static final String READY = "ready";

    public static void main(String[] args) throws java.io.IOException {
      System.out.println(READY);
      System.out.flush();
      System.in.read(); // the test never writes: blocks until the process is destroyed
    }
  }

  @Test
  void aMedianLeavesOutRoundsWithoutAFigure() {
    assertThat(OverheadRun.median(
            List.of(new double[] {Double.NaN}, new double[] {1}, new double[] {3}), 0))
        .isEqualTo(2);
    assertThat(OverheadRun.median(List.of(new double[] {Double.NaN}), 0)).isNaN();
  }

  @Test
  void wrksSummaryGivesRequestsDurationNon2xxAndPercentiles() throws IOException {
    String output = """
        Running 5s test @ http://127.0.0.1:4711/api/ping
          1 threads and 16 connections
          Thread Stats   Avg      Stdev     Max   +/- Stdev
            Latency     1.10ms  612.31us  20.31ms   91.20%
          Latency Distribution
             50%    0.98ms
             75%    1.20ms
             90%    1.61ms
             99%    3.50ms
          63211 requests in 5.01s, 6.33MB read
          Non-2xx or 3xx responses: 3
        Requests/sec:  12616.97\
        """;
    OverheadRun.Round round = OverheadRun.Wrk.parse(output);
    assertThat(round.requests()).isEqualTo(63211);
    assertThat(round.seconds()).isEqualTo(5.01);
    assertThat(round.non2xx()).isEqualTo(3);
    assertThat(round.p50Millis()).isEqualTo(0.98);
    assertThat(round.p99Millis()).isEqualTo(3.5);
    assertThat(OverheadRun.Wrk.parse(output
                .replace("  Non-2xx or 3xx responses: 3\n", "")
                .replace("99%    3.50ms", "99%  750.00us"))
            .p99Millis())
        .isEqualTo(0.75);
  }

  @Test
  void warmUpEndsWhenTwoRoundsAgreeWithinTenPercent() {
    assertThat(OverheadRun.settled(100, 109)).isTrue();
    assertThat(OverheadRun.settled(100, 91)).isTrue();
    assertThat(OverheadRun.settled(100, 120)).isFalse();
    assertThat(OverheadRun.settled(300, 100)).isFalse();
    assertThat(OverheadRun.settled(Double.NaN, 100)).isFalse();
  }

  @Test
  void theMedianOfAnEvenCountIsTheMeanOfTheMiddleTwo() {
    assertThat(OverheadRun.median(List.of(new double[] {3}, new double[] {1}, new double[] {2}), 0))
        .isEqualTo(2);
    assertThat(OverheadRun.median(
            List.of(new double[] {4}, new double[] {1}, new double[] {2}, new double[] {3}), 0))
        .isEqualTo(2.5);
  }
}
