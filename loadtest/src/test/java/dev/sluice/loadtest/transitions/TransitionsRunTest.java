package dev.sluice.loadtest.transitions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.sluice.loadtest.Options;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scenario's options, and its readings of Redis and of a node's status. */
class TransitionsRunTest {

  @Test
  void variantsPickPartsAndAnUnknownOneIsRefusedNamingTheParts() {
    Options all = Options.parse("--embedded", "--scenario", "transitions");
    assertThat(TransitionsRun.parts(all)).isEqualTo(TransitionsRun.PARTS);
    assertThat(all.duration()).hasSeconds(20);
    Options two =
        Options.parse("--embedded", "--scenario", "transitions", "--variants", "kill, reload");
    assertThat(TransitionsRun.parts(two)).containsExactly("kill", "reload");
    Options ffmpeg =
        Options.parse("--embedded", "--scenario", "transitions", "--variants", "cold-ffmpeg");
    assertThat(TransitionsRun.parts(ffmpeg)).containsExactly("cold-ffmpeg");
    assertThat(TransitionsRun.PARTS).contains("cold-start", "cold-ffmpeg");
    assertThatThrownBy(() ->
            Options.parse("--embedded", "--scenario", "transitions", "--variants", "kill,restart"))
        .hasMessageContaining("'restart'")
        .hasMessageContaining("rolling-restart");
    assertThatThrownBy(
            () -> Options.parse("--target", "http://localhost:7070", "--scenario", "transitions"))
        .hasMessageContaining("--embedded");
  }

  @Test
  void commandstatsAreReadAsCallsPerNodePerSecondWithoutTheScenariosOwnCommands() {
    String info = """
        # Commandstats
        cmdstat_evalsha:calls=400,usec=900,usec_per_call=2.25
        cmdstat_zadd:calls=40,usec=10,usec_per_call=0.25
        cmdstat_info:calls=3,usec=1,usec_per_call=0.3
        cmdstat_config|resetstat:calls=1,usec=1,usec_per_call=1
        """.replace("\n", "\r\n");
    Map<String, Double> perNode = TransitionsRun.perNodePerSecond(info, 10, 2);
    assertThat(perNode).containsOnly(Map.entry("evalsha", 20.0), Map.entry("zadd", 2.0));
    assertThat(TransitionsReport.commands(perNode)).isEqualTo("evalsha 20.0, zadd 2.0");
  }

  @Test
  void aLimitersDecisionsAreItsAdmissionsPlusEveryKindOfRefusal() throws Exception {
    var limiter = new ObjectMapper()
        .readTree("{\"admitted\":40,\"rejected\":{\"queueFull\":1,\"queueTimeout\":2,"
            + "\"shutdown\":0}}");
    assertThat(TransitionsRun.decisions(limiter)).isEqualTo(43);
  }

  @Test
  void theAnswersAreTalliedByFinalStatusAndRefusedConnectsSentOnAreNamed() {
    Shot refused = Shot.failed(1, 0, 1, Shot.Failure.REFUSED);
    Shot ok = Shot.answered(2, 0, 1, 200, false, false);
    Shot drain = Shot.answered(1, 0, 1, 503, true, true);
    Shot cut = Shot.failed(1, 0, 1, Shot.Failure.CUT);
    Map<String, Long> tally = TransitionsReport.tally(List.of(
        new Figures.Request(List.of(refused, ok)),
        new Figures.Request(List.of(ok)),
        new Figures.Request(List.of(drain)),
        new Figures.Request(List.of(cut))));
    assertThat(tally)
        .containsOnly(
            Map.entry("200", 1L),
            Map.entry("200 (after a refused connect)", 1L),
            Map.entry("503 drain answer", 1L),
            Map.entry("cut", 1L));
  }
}
