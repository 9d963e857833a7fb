package dev.sluice.loadtest;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.loadtest.engine.Door;
import dev.sluice.loadtest.overhead.OverheadRun;
import dev.sluice.loadtest.scenario.Scenario;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class OptionsTest {

  @Test
  void theEnvoyScenarioStartsItsOwnServicesAndRunsTwentySecondsByDefault() {
    Options o = Options.parse("--embedded", "--scenario", "envoy-ratelimit", "--rate", "800");
    assertThat(o.duration()).isEqualTo(Duration.ofSeconds(20));
    assertThat(o.rate()).contains(800.0);
    assertThatThrownBy(() ->
            Options.parse("--target", "http://localhost:7070", "--scenario", "envoy-ratelimit"))
        .hasMessageContaining("--scenario envoy-ratelimit starts its own redis-server")
        .hasMessageContaining("needs --embedded");
  }

  @Test
  void theReplayCommandRunsTheScenarioAgainWithWhatWasGiven() {
    Options o = Options.parse(
        "--embedded",
        "--scenario",
        "jepsen",
        "--duration",
        "2m",
        "--variants",
        "reset,clock",
        "--server-property",
        "a=1",
        "--server-property",
        "b=2",
        "--seed",
        "9",
        "--out",
        "x");

    assertThat(o.replay("jepsen", " --drain 5s"))
        .isEqualTo("java -jar loadtest/target/loadtest.jar --embedded --scenario jepsen"
            + " --duration 120s --drain 5s --variants reset,clock --server-property a=1"
            + " --server-property b=2 --seed 9 --out x");
    assertThat(Options.parse("--embedded", "--scenario", "jepsen", "--duration", "30s")
            .replay("jepsen", ""))
        .isEqualTo("java -jar loadtest/target/loadtest.jar --embedded --scenario jepsen"
            + " --duration 30s --seed 42 --out " + Options.parse("--embedded").out());
  }

  @Test
  void parsesAFullCommandLine() {
    Options o = Options.parse(
        "--embedded",
        "--ab",
        "--scenario",
        "spike",
        "--duration",
        "2m",
        "--rate",
        "12.5",
        "--seed",
        "9",
        "--out",
        "x",
        "--drain",
        "500ms",
        "--server-property",
        "a.b=c");
    assertThat(o.embedded()).isTrue();
    assertThat(o.ab()).isTrue();
    assertThat(o.experiment()).isEqualTo(Scenario.SPIKE);
    assertThat(o.duration()).isEqualTo(Duration.ofMinutes(2));
    assertThat(o.rate()).hasValue(12.5);
    assertThat(o.drain()).isEqualTo(Duration.ofMillis(500));
    assertThat(o.serverProperties()).containsExactly("a.b=c");
    assertThat(Options.parse("--target", "http://h:7070").target().orElseThrow().toString())
        .isEqualTo("http://h:7070/");
  }

  @Test
  void helpPrintsTheUsageAndReturnsNormally() throws Exception {
    java.io.PrintStream before = System.out;
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    System.setOut(new java.io.PrintStream(out, true, java.nio.charset.StandardCharsets.UTF_8));
    try {
      LoadTest.main(new String[] {"--help"}); // returns, so the JVM exits 0 (no System.exit)
    } finally {
      System.setOut(before);
    }
    assertThat(out.toString(java.nio.charset.StandardCharsets.UTF_8))
        .startsWith("usage:")
        .contains("--port N")
        .contains("--help");
    assertThat(Options.wantsHelp("--embedded", "-h")).isTrue();
    assertThat(Options.wantsHelp("--embedded")).isFalse();
  }

  @Test
  void portGoesToTheEmbeddedServiceOnly() {
    assertThat(Options.parse("--embedded", "--port", "8123").serverProperties())
        .containsExactly("server.port=8123");
    assertThatThrownBy(() -> Options.parse("--target", "http://h:1", "--port", "8123"))
        .hasMessageContaining("--port");
    assertThatThrownBy(() -> Options.parse("--embedded", "--overhead", "--port", "8123"))
        .hasMessageContaining("--overhead");
    assertThatThrownBy(() -> Options.parse("--embedded", "--port", "70000"))
        .hasMessageContaining("--port")
        .hasMessageContaining("70000");
  }

  @Test
  void scenarioOverheadAndTheOlderOverheadOptionResolveToTheSameExperiment() {
    Experiment byName = Options.parse("--embedded", "--scenario", "overhead").experiment();
    Experiment byAlias = Options.parse("--embedded", "--overhead").experiment();

    assertThat(byAlias).isSameAs(byName).isInstanceOf(OverheadRun.class);
    assertThat(byName.id()).isEqualTo("overhead");
    // saying it twice is fine, naming two scenarios is not
    assertThat(
            Options.parse("--embedded", "--overhead", "--scenario", "overhead").experiment())
        .isSameAs(byName);
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "adaptive", "--overhead"))
        .hasMessageContaining("--scenario adaptive")
        .hasMessageContaining("--overhead");
    assertThatThrownBy(() -> Options.parse("--target", "http://h:1", "--overhead"))
        .hasMessageContaining("--overhead")
        .hasMessageContaining("--embedded");
  }

  @Test
  void anUnknownScenarioIsRefusedListingTheKnownOnes() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "tuesday"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "--scenario must be one of monday-maintenance, steady, spike, greedy-host, "
                + "priority, adaptive, overload, ingest, monday, overhead, soak, transitions, hostile-keys, jepsen, envoy-ratelimit but was 'tuesday'");
  }

  @Test
  void everyKnownScenarioResolvesToItselfAndTheUsageNamesIt() {
    assertThat(Options.parse("--embedded").experiment()).isSameAs(Scenario.MONDAY_MAINTENANCE);
    for (Experiment experiment : Experiments.ALL) {
      assertThat(Options.parse("--embedded", "--scenario", experiment.id()).experiment())
          .isSameAs(experiment);
      assertThat(Options.USAGE).contains(experiment.id());
    }
  }

  @Test
  void anOptionOfAnotherScenarioIsRefusedNamingTheScenariosThatReadIt() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "steady", "--mix", "cpu"))
        .hasMessageContaining("--mix")
        .hasMessageContaining("adaptive")
        .hasMessageContaining("steady");
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "greedy-host", "--ab"))
        .hasMessageContaining("--ab")
        .hasMessageContaining("monday-maintenance")
        .hasMessageContaining("greedy-host");
    assertThat(Options.parse("--embedded", "--scenario", "spike", "--ab").ab()).isTrue();
  }

  @Test
  void errorsNameTheOptionAndTheValue() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--rate", "-3"))
        .hasMessageContaining("--rate")
        .hasMessageContaining("-3");
    assertThatThrownBy(() -> Options.parse("--embedded", "--duration", "soon"))
        .hasMessageContaining("--duration")
        .hasMessageContaining("soon");
    assertThatThrownBy(() -> Options.parse("--embedded", "--scenario", "tuesday"))
        .hasMessageContaining("--scenario")
        .hasMessageContaining("tuesday");
    assertThatThrownBy(() -> Options.parse("--target", "ftp://x"))
        .hasMessageContaining("--target")
        .hasMessageContaining("ftp://x");
    assertThatThrownBy(() -> Options.parse("--target", "http://x", "--ab"))
        .hasMessageContaining("--ab");
    assertThatThrownBy(() -> Options.parse()).hasMessageContaining("--embedded");
    assertThatThrownBy(() -> Options.parse("--embedded", "--frobnicate"))
        .hasMessageContaining("--frobnicate");
  }

  @Test
  void theDoorIsHttpUnlessGrpcIsAskedForTheOpenLoopScenarios() {
    assertThat(Options.parse("--embedded").door()).isEqualTo(Door.HTTP);
    Options grpc = Options.parse("--embedded", "--door", "grpc");
    assertThat(grpc.door()).isEqualTo(Door.GRPC);
    assertThat(grpc.grpcPort()).isZero();
    assertThat(Options.parse("--embedded", "--scenario", "steady", "--door", "grpc", "--ab")
            .door())
        .isEqualTo(Door.GRPC);
    assertThat(
            Options.parse("--target", "http://host:7070", "--door", "grpc", "--grpc-port", "9090")
                .grpcPort())
        .isEqualTo(9090);
  }

  @Test
  void aWrongDoorIsRefusedNamingTheOptionAndWhatItNeeds() {
    assertThatThrownBy(() -> Options.parse("--embedded", "--door", "websocket"))
        .hasMessageContaining("--door must be http or grpc but was 'websocket'");
    assertThatThrownBy(
            () -> Options.parse("--embedded", "--scenario", "adaptive", "--door", "grpc"))
        .hasMessageContaining("--door is for --scenario monday-maintenance, steady, spike")
        .hasMessageContaining("overload")
        .hasMessageContaining("not adaptive");
    assertThatThrownBy(() -> Options.parse("--target", "http://host:7070", "--door", "grpc"))
        .hasMessageContaining("--door grpc with --target needs --grpc-port");
    assertThatThrownBy(() -> Options.parse("--embedded", "--grpc-port", "9090"))
        .hasMessageContaining("--grpc-port is the port of --door grpc");
    assertThatThrownBy(() -> Options.parse("--embedded", "--door", "grpc", "--grpc-port", "0"))
        .hasMessageContaining("--grpc-port must be an integer in [1, 65535]");
  }
}
