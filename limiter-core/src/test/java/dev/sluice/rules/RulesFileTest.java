package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.request.Actor;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RulesFileTest {

  private static final String CONTRACT = """
      rules:
        - id: history-per-account
          resource: /api/history/*
          method: GET
          actor: account
          limit: 10
          unit: second
          burst: 20
          algorithm: sliding-window
          scope: global
          shadow: true
        - resource: /signup
          actor: ip
          limit: 10
          unit: day
      """;

  private static RulesFileException error(String yaml) {
    return catchThrowableOfType(
        RulesFileException.class, () -> RulesFile.parse("rules.yaml", yaml));
  }

  @Test
  void everyMistakeOfAFileIsReportedInOneRun() {
    RulesFileException e = error("""
        rules:
          - {resource: /a, limit: 0, unit: second}
          - {resource: /b, limit: 5, unit: second}
          - {resource: /c, limit: 5, unit: fortnight}
          - {resource: /d, limit: 5, unit: second, algorithm: magic}
        """);

    assertThat(e.all()).extracting(RulesFileException::line).containsExactly(2, 4, 5);
    assertThat(e.all())
        .extracting(RulesFileException::field)
        .containsExactly("rules[0].limit", "rules[2].unit", "rules[3].algorithm");
    assertThat(e.getMessage())
        .startsWith("rules.yaml:2: rules[0].limit")
        .contains("and 2 more")
        .contains("rules.yaml:4: rules[2].unit")
        .contains("rules.yaml:5: rules[3].algorithm");
  }

  @Test
  void readsTheContractLayout() throws Exception {
    RuleSet set = RulesFile.parse("rules.yaml", CONTRACT);
    Rule history = set.rules().get(0);
    assertThat(history)
        .isEqualTo(new Rule(
            "history-per-account",
            ResourcePattern.parse("/api/history/*"),
            Optional.of("GET"),
            Actor.Account.INSTANCE,
            new RateLimit(10, Duration.ofSeconds(1), 20),
            Algorithm.SLIDING_WINDOW,
            Scope.GLOBAL,
            true));
    Rule signup = set.rules().get(1);
    assertThat(signup.id()).isEqualTo("ip:/signup:1d");
    assertThat(signup.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
    assertThat(signup.scope()).isEqualTo(Scope.LOCAL);
    assertThat(signup.limit()).isEqualTo(RateLimit.of(10, Duration.ofDays(1)));
  }

  @Test
  void readsTheDianaLayoutWithUrlAsASubtree() throws Exception {
    RuleSet set = RulesFile.parse("diana.yaml", """
        Url: /
        rules:
          - actor: device     # account | device | all
            unit: second
            rpu: 10
            algo: TB
            scope: global
          - actor: account
            unit: minute
            rpu: 100
            algo: SW
        ---
        Url: /sample
        rules:
          - actor: all
            unit: hour
            rpu: 5000
            algo: W
          - actor: all
            unit: day
            rpu: 90000
            algo: LB
        """);
    assertThat(set.rules())
        .extracting(Rule::algorithm)
        .containsExactly(
            Algorithm.TOKEN_BUCKET,
            Algorithm.SLIDING_WINDOW,
            Algorithm.FIXED_WINDOW,
            Algorithm.LEAKY_BUCKET);
    assertThat(set.rules().get(0).scope()).isEqualTo(Scope.GLOBAL);
    assertThat(set.rules().get(1).scope()).isEqualTo(Scope.LOCAL);
    assertThat(set.rules().get(0).limit()).isEqualTo(RateLimit.of(10, Duration.ofSeconds(1)));
    // paths nest: "/" is checked before "/sample"
    assertThat(set.matching("GET", "/sample/clip/1"))
        .extracting(Rule::id)
        .containsExactly(
            "device:/**:1s", "account:/**:1m", "all:/sample/**:1h", "all:/sample/**:1d");
    assertThat(set.matching("GET", "/other")).hasSize(2);
  }

  @Test
  void unitsTakeNamesAndDurations() throws Exception {
    String template = "rules:\n  - {resource: /x, limit: 1, unit: %s}\n";
    Object[][] cases = {
      {"second", Duration.ofSeconds(1)},
      {"minute", Duration.ofMinutes(1)},
      {"hour", Duration.ofHours(1)},
      {"day", Duration.ofDays(1)},
      {"week", Duration.ofDays(7)},
      {"10s", Duration.ofSeconds(10)},
      {"15m", Duration.ofMinutes(15)},
      {"500ms", Duration.ofMillis(500)},
      {"PT1H", Duration.ofHours(1)},
      {"2w", Duration.ofDays(14)}
    };
    for (Object[] c : cases) {
      RuleSet set = RulesFile.parse("u.yaml", template.formatted(c[0]));
      assertThat(set.rules().get(0).limit().period()).as("%s", c[0]).isEqualTo(c[1]);
    }
  }

  @Test
  void emptyRulesListIsValid() throws Exception {
    assertThat(RulesFile.parse("e.yaml", "rules: []\n").rules()).isEmpty();
  }

  @Test
  void unknownAlgorithmNamesFileLineFieldAndAllowedValues() {
    RulesFileException e = error("""
        rules:
          - resource: /x
            limit: 1
            unit: second
            algorithm: tokenbucket
        """);
    assertThat(e.source()).isEqualTo("rules.yaml");
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.field()).isEqualTo("rules[0].algorithm");
    assertThat(e.getMessage())
        .startsWith("rules.yaml:5: rules[0].algorithm: ")
        .contains("'tokenbucket'")
        .contains("token-bucket, leaky-bucket, leaky-bucket-shaper, fixed-window, sliding-log,"
            + " sliding-window, gcra");
  }

  @Test
  void unknownUnitListsTheAllowedUnits() {
    RulesFileException e = error("rules:\n  - resource: /x\n    limit: 1\n    unit: fortnight\n");
    assertThat(e.line()).isEqualTo(4);
    assertThat(e.field()).isEqualTo("rules[0].unit");
    assertThat(e.getMessage()).contains("'fortnight'").contains("second, minute, hour, day, week");
  }

  @Test
  void aNegativeOrOverflowingUnitNamesFileLineFieldAndTheAllowedUnits() {
    for (String unit : new String[] {"PT-1S", "99999999999999999999s", "200000d"}) {
      RulesFileException e =
          error("rules:\n  - resource: /x\n    limit: 1\n    unit: " + unit + "\n");
      assertThat(e.line()).as(unit).isEqualTo(4);
      assertThat(e.field()).isEqualTo("rules[0].unit");
      assertThat(e.getMessage())
          .startsWith("rules.yaml:4: rules[0].unit: ")
          .contains("'" + unit + "'")
          .contains("second, minute, hour, day, week");
    }
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: 3651d}\n").getMessage())
        .contains("at most 3650 days")
        .contains("'3651d'");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: 0ms}\n").getMessage())
        .contains("at least 1 microsecond")
        .contains("'0ms'");
  }

  @Test
  void unknownActorListsTheAllowedActors() {
    RulesFileException e =
        error("rules:\n  - resource: /x\n    limit: 1\n    unit: day\n    actor: user\n");
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.field()).isEqualTo("rules[0].actor");
    assertThat(e.getMessage()).contains("'user'").contains("all, ip, account, device, header:");
  }

  @Test
  void unknownDianaAlgorithmListsTheLetters() {
    RulesFileException e = error("Url: /\nrules:\n  - rpu: 1\n    unit: day\n    algo: XB\n");
    assertThat(e.line()).isEqualTo(5);
    assertThat(e.field()).isEqualTo("rules[0].algo");
    assertThat(e.getMessage()).contains("'XB'").contains("W, SW, LB, TB");
  }

  @Test
  void unknownFieldIsNamedWithTheAllowedOnes() {
    RulesFileException e = error("rules:\n  - resource: /x\n    limt: 1\n    unit: day\n");
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.field()).isEqualTo("rules[0].limt");
    assertThat(e.getMessage()).contains("unknown field 'limt'").contains("allowed: id, resource");
  }

  @Test
  void fieldOfTheOtherLayoutSaysWhichNameToUse() {
    RulesFileException e = error("rules:\n  - resource: /x\n    rpu: 1\n    unit: day\n");
    assertThat(e.getMessage()).contains("unknown field 'rpu'").contains("'limit'");
  }

  @Test
  void fieldWithoutANameIsNamedAsAKeyNotAsAnEmptyField() {
    // found by RulesFileFuzzTest: a bare "?" (an empty YAML key) was "unknown field ''" at field ""
    RulesFileException top = error("?");
    assertThat(top.field()).isEqualTo("(key)");
    assertThat(top.problem()).startsWith("a field has no name; allowed: rules");
    RulesFileException inRule = error("rules:\n  - resource: /x\n    \"\": 1\n");
    assertThat(inRule.line()).isEqualTo(3);
    assertThat(inRule.field()).isEqualTo("rules[0].(key)");
  }

  @Test
  void unknownTopLevelFieldIsNamed() {
    RulesFileException e = error("rulez:\n  - resource: /x\n");
    assertThat(e.line()).isEqualTo(1);
    assertThat(e.field()).isEqualTo("rulez");
  }

  @Test
  void duplicateExplicitIdsAreRejectedAtTheSecondRule() {
    RulesFileException e = error("""
        rules:
          - {id: a, resource: /x, limit: 1, unit: day}
          - {id: a, resource: /y, limit: 1, unit: day}
        """);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.field()).isEqualTo("rules[1].id");
    assertThat(e.getMessage()).contains("duplicate rule id 'a'").contains("line 2");
  }

  @Test
  void duplicateDerivedIdsAskForAnExplicitId() {
    RulesFileException e = error("""
        rules:
          - {resource: /x, limit: 1, unit: day}
          - {resource: /x, limit: 5, unit: day, algorithm: gcra}
        """);
    assertThat(e.line()).isEqualTo(3);
    assertThat(e.getMessage()).contains("duplicate rule id 'all:/x:1d'").contains("its own 'id'");
  }

  @Test
  void missingRequiredFieldIsNamed() {
    RulesFileException e = error("rules:\n  - resource: /x\n    unit: day\n");
    assertThat(e.line()).isEqualTo(2);
    assertThat(e.field()).isEqualTo("rules[0].limit");
    assertThat(e.getMessage()).contains("missing field 'limit'");
    assertThat(error("foo: 1\n").field()).isEqualTo("foo");
    assertThat(error("Url: /\n").field()).isEqualTo("rules");
  }

  @Test
  void badValuesAreNamedWithTheValue() {
    assertThat(error("rules:\n  - {resource: /x, limit: -3, unit: day}\n").getMessage())
        .contains("rules[0].limit")
        .contains("'-3'");
    assertThat(error("rules:\n  - {resource: /x, limit: 2.5, unit: day}\n").getMessage())
        .contains("whole number")
        .contains("'2.5'");
    assertThat(error("rules:\n  - {resource: /x, limit: 99999999999999999999, unit: day}\n")
            .field())
        .isEqualTo("rules[0].limit");
    assertThat(
            error("rules:\n  - {resource: /x, limit: 1, unit: day, burst: 0}\n").field())
        .isEqualTo("rules[0].burst");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: day, shadow: yes}\n")
            .getMessage())
        .contains("true or false")
        .contains("'yes'");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: day, scope: cluster}\n")
            .getMessage())
        .contains("'cluster'")
        .contains("local, global");
    assertThat(error("rules:\n  - {resource: x, limit: 1, unit: day}\n").field())
        .isEqualTo("rules[0].resource");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: day, method: 'G T'}\n")
            .field())
        .isEqualTo("rules[0].method");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: 0s}\n").field())
        .isEqualTo("rules[0].unit");
    assertThat(error("rules:\n  - {resource: /x, limit: 1, unit: 99999999d}\n").field())
        .isEqualTo("rules[0].unit");
    assertThat(error("rules:\n  - {resource: /x, limit: , unit: day}\n").getMessage())
        .contains("must not be empty");
    assertThat(error("rules:\n  - {resource: [/x], limit: 1, unit: day}\n").getMessage())
        .contains("single value");
    assertThat(error("rules:\n  - {id: 'a b', resource: /x, limit: 1, unit: day}\n")
            .field())
        .isEqualTo("rules[0].id");
  }

  @Test
  void wrongShapesAreNamed() {
    assertThat(error("rules: 5\n").getMessage()).contains("must be a list");
    assertThat(error("rules:\n  - just-a-string\n").field()).isEqualTo("rules[0]");
    assertThat(error("- a\n- b\n").field()).isEqualTo("(document)");
    assertThat(
            error("rules:\n  - {resource: /x, limit: 1, limit: 2, unit: day}\n").getMessage())
        .contains("appears twice");
  }

  @Test
  void syntaxErrorsGiveTheLine() {
    RulesFileException e = error("rules:\n  - resource: /x\n    limit: [1\n    unit: day\n");
    assertThat(e.field()).isEqualTo("(yaml)");
    assertThat(e.line()).isGreaterThanOrEqualTo(3);
    assertThat(e.getMessage()).startsWith("rules.yaml:").contains("not valid YAML");
  }

  @Test
  void emptyFileIsAnError() {
    assertThat(error("").getMessage()).contains("empty");
    assertThat(error("# only a comment\n").getMessage()).contains("empty");
  }

  @Test
  void loadsFromAPathAndNamesAMissingFile(@TempDir Path dir) throws Exception {
    Path file = dir.resolve("ratelimits.yaml");
    Files.writeString(file, CONTRACT);
    assertThat(RulesFile.load(file).rules()).hasSize(2);
    RulesFileException e = catchThrowableOfType(
        RulesFileException.class, () -> RulesFile.load(dir.resolve("missing.yaml")));
    assertThat(e.source()).endsWith("missing.yaml");
    assertThat(e.getMessage()).contains("cannot be read");
  }

  @Test
  void billionLaughsIsRefused() {
    StringBuilder yaml = new StringBuilder("a: &a [x, x, x, x, x, x, x, x, x]\n");
    for (char c = 'b'; c <= 'k'; c++) {
      yaml.append(c).append(": &").append(c).append(" [");
      for (int i = 0; i < 9; i++) {
        yaml.append(i == 0 ? "" : ", ").append('*').append((char) (c - 1));
      }
      yaml.append("]\n");
    }
    assertThat(error(yaml.toString())).isNotNull();
  }

  @Test
  void aProblemOnNoLineNamesTheSourceWithoutALineNumber() {
    RulesFileException onNoLine =
        new RulesFileException("rules.yaml", 0, "(file)", "cannot be read");
    RulesFileException onALine = new RulesFileException("rules.yaml", 1, "rules", "missing");

    assertThat(onNoLine).hasMessage("rules.yaml: (file): cannot be read");
    assertThat(onALine).hasMessage("rules.yaml:1: rules: missing");
  }
}
