package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The example files of the README stay valid and mean what the README says. */
class ExampleFilesTest {

  @Test
  void sampleRulesFileLoads() throws Exception {
    RuleSet rules = RulesFile.load(Path.of("examples/ratelimits.yaml"));
    assertThat(rules.rules()).hasSize(7);
    assertThat(rules.matching("GET", "/api/history/7"))
        .extracting(Rule::id)
        .containsExactly(
            "api-ceiling", "per-ip", "history-trial", "header:x-api-key:GET:/api/history/*:1m");
    assertThat(rules.rule("history-trial").orElseThrow().shadow()).isTrue();
    assertThat(rules.rule("signups-per-ip").orElseThrow().algorithm())
        .isEqualTo(Algorithm.SLIDING_LOG);
  }

  @Test
  void sampleDianaFileLoads() throws Exception {
    RuleSet rules = RulesFile.load(Path.of("examples/diana.yaml"));
    assertThat(rules.matching("GET", "/sample/clip"))
        .extracting(Rule::id)
        .containsExactly("device:/**:1s", "account:/sample/**:1m");
    assertThat(rules.matching("GET", "/elsewhere"))
        .extracting(Rule::id)
        .containsExactly("device:/**:1s");
  }
}
