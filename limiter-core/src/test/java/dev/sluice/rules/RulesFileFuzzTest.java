package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.sluice.time.DurationText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Tag;

/**
 * Bad rules files at scale: whatever the text, {@link RulesFile#parse} either gives a rule set or
 * throws {@link RulesFileException} naming the file, the line and the field; nothing else escapes.
 * The corpus (src/test/resources/dev/sluice/rules/RulesFileFuzzTestInputs/) holds the three
 * layouts and the inputs the fuzzer found interesting; without JAZZER_FUZZ=1 it is replayed as a
 * plain test.
 */
@Tag("fuzz")
class RulesFileFuzzTest {

  private static final String SOURCE = "fuzzed.yaml";

  @FuzzTest(maxDuration = "20m", maxExecutions = 1_000_000)
  void anyTextIsARuleSetOrAnErrorNamingLineAndField(byte[] data) {
    String yaml = new String(data, StandardCharsets.UTF_8);
    RuleSet rules;
    try {
      rules = RulesFile.parse(SOURCE, yaml);
    } catch (RulesFileException e) {
      assertThat(e.all()).isNotEmpty();
      for (RulesFileException one : e.all()) {
        assertThat(one.source()).isEqualTo(SOURCE);
        assertThat(one.line()).isBetween(0, yaml.length() + 1);
        assertThat(one.field()).isNotBlank().doesNotEndWith("].");
        assertThat(one.problem()).isNotBlank();
        assertThat(one.getMessage()).startsWith(SOURCE);
      }
      return;
    }
    // what parses, parses the same again: no state kept between two reads of one file
    try {
      assertThat(RulesFile.parse(SOURCE, yaml)).isEqualTo(rules);
    } catch (RulesFileException e) {
      throw new AssertionError("the second parse of a valid file failed: " + e, e);
    }
  }

  @FuzzTest(maxDuration = "5m", maxExecutions = 1_000_000)
  void anyDurationTextParsesToItsOwnIsoFormOrFailsWithIllegalArgument(byte[] data) {
    String text = new String(data, StandardCharsets.UTF_8);
    Duration parsed;
    try {
      parsed = DurationText.parse(text);
    } catch (IllegalArgumentException e) {
      assertThat(e.getMessage()).isNotBlank();
      return;
    }
    assertThat(parsed.isNegative()).isFalse();
    assertThat(parsed).isLessThanOrEqualTo(DurationText.MAX);
    assertThat(DurationText.parse(parsed.toString())).isEqualTo(parsed);
  }
}
