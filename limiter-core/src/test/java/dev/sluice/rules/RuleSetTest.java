package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class RuleSetTest {

  private static Rule rule(String id, String resource, String method) {
    return Rule.builder()
        .id(id)
        .resource(resource)
        .method(method)
        .limit(10, Duration.ofSeconds(1))
        .build();
  }

  @Test
  void matchesByPathAndMethod() {
    RuleSet set = RuleSet.of(List.of(
        rule("get-history", "/api/history/*", "GET"),
        rule("any-history", "/api/history/*", null),
        rule("post-transcode", "/api/transcode", "POST")));
    assertThat(set.matching("GET", "/api/history/1"))
        .extracting(Rule::id)
        .containsExactly("any-history", "get-history");
    assertThat(set.matching("delete", "/api/history/1"))
        .extracting(Rule::id)
        .containsExactly("any-history");
    assertThat(set.matching("get", "/api/history/1")).extracting(Rule::id).contains("get-history");
    assertThat(set.matching("GET", "/api/transcode")).isEmpty();
    assertThat(set.matching("POST", "/api/transcode"))
        .extracting(Rule::id)
        .containsExactly("post-transcode");
    assertThat(set.matching("GET", "/nowhere")).isEmpty();
  }

  @Test
  void broadestRuleComesFirstWhateverTheFileOrder() {
    RuleSet set = RuleSet.of(List.of(
        rule("exact", "/api/history/1", null),
        rule("one-segment", "/api/history/*", null),
        rule("api-subtree", "/api/**", null),
        rule("history-subtree", "/api/history/**", null),
        rule("everything", "/**", null)));
    assertThat(set.matching("GET", "/api/history/1"))
        .extracting(Rule::id)
        .containsExactly("everything", "api-subtree", "history-subtree", "one-segment", "exact");
    assertThat(set.rules()).extracting(Rule::id).startsWith("exact");
  }

  @Test
  void duplicateIdsAreRejected() {
    assertThatThrownBy(() -> RuleSet.of(List.of(rule("a", "/x", null), rule("a", "/y", null))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("duplicate rule id 'a'");
  }

  @Test
  void indexAnswersWhatAScanOfEveryRuleAnswers() {
    Random random = new Random(42);
    String[] words = {"a", "b", "c", "api", "x"};
    String[] methods = {null, "GET", "POST"};
    List<Rule> rules = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      StringBuilder pattern = new StringBuilder();
      int depth = random.nextInt(4);
      for (int d = 0; d < depth; d++) {
        pattern
            .append('/')
            .append(random.nextInt(4) == 0 ? "*" : words[random.nextInt(words.length)]);
      }
      if (random.nextBoolean()) {
        pattern.append("/**");
      }
      rules.add(rule(
          "r" + i,
          pattern.length() == 0 ? "/" : pattern.toString(),
          methods[random.nextInt(methods.length)]));
    }
    RuleSet set = RuleSet.of(rules);
    for (int i = 0; i < 2_000; i++) {
      StringBuilder path = new StringBuilder();
      int depth = random.nextInt(5);
      for (int d = 0; d < depth; d++) {
        path.append('/').append(words[random.nextInt(words.length)]);
      }
      String requestPath = path.length() == 0 ? "/" : path.toString();
      String method = random.nextBoolean() ? "GET" : "POST";
      List<String> scanned = set.ordered().stream()
          .filter(r -> r.matches(method, requestPath))
          .map(Rule::id)
          .toList();
      assertThat(set.matching(method, requestPath))
          .extracting(Rule::id)
          .as("%s %s", method, requestPath)
          .containsExactlyElementsOf(scanned);
    }
  }

  @Test
  void smallSetsWithAndWithoutWildcardsAnswerWhatAScanAnswersWhateverTheSlashes() {
    Random random = new Random(7);
    // "Aa" and "BB" have the same String hash: a lookup must still tell them apart
    String[] words = {"Aa", "BB", "api", "v1", "ping", "x"};
    String[] methods = {null, null, "GET", "POST"};
    for (int set = 0; set < 300; set++) {
      boolean wildcards = set % 3 == 0;
      List<Rule> rules = new ArrayList<>();
      int count = 1 + random.nextInt(12);
      for (int i = 0; i < count; i++) {
        StringBuilder pattern = new StringBuilder();
        int depth = random.nextInt(4);
        for (int d = 0; d < depth; d++) {
          pattern
              .append('/')
              .append(
                  wildcards && random.nextInt(4) == 0 ? "*" : words[random.nextInt(words.length)]);
        }
        if (random.nextInt(3) == 0) {
          pattern.append("/**");
        }
        rules.add(rule(
            "r" + i,
            pattern.length() == 0 ? "/" : pattern.toString(),
            methods[random.nextInt(methods.length)]));
      }
      RuleSet rulesSet = RuleSet.of(rules);
      for (int i = 0; i < 100; i++) {
        StringBuilder path = new StringBuilder();
        int depth = random.nextInt(5);
        for (int d = 0; d < depth; d++) {
          path.append(random.nextInt(6) == 0 ? "//" : "/")
              .append(words[random.nextInt(words.length)]);
        }
        if (random.nextInt(4) == 0) {
          path.append('/');
        }
        String requestPath = path.length() == 0 ? "/" : path.toString();
        String method = random.nextBoolean() ? "GET" : "POST";
        List<String> scanned = rulesSet.ordered().stream()
            .filter(r -> r.matches(method, requestPath))
            .map(Rule::id)
            .toList();
        assertThat(rulesSet.matching(method, requestPath))
            .extracting(Rule::id)
            .as("%s %s in %s", method, requestPath, rules)
            .containsExactlyElementsOf(scanned);
      }
    }
  }

  @Test
  void aPathWithoutWildcardsOnItsWayIsAnsweredFromTheIndexWithoutANewArray() {
    RuleSet set = RuleSet.of(List.of(
        rule("all", "/**", null),
        rule("api", "/api/**", null),
        rule("ping", "/api/ping", "GET"),
        rule("admin", "/admin/*", null)));
    int[] first = set.match("GET", "/api/ping");
    assertThat(first).containsExactly(0, 1, 3); // "/admin/*" is broader than "/api/ping": 2
    assertThat(set.match("GET", "//api/ping/")).isSameAs(first); // the same array: nothing built
    assertThat(set.match("POST", "/api/ping")).containsExactly(0, 1); // a method filtered out
    assertThat(set.match("GET", "/elsewhere"))
        .containsExactly(0)
        .isSameAs(set.match("GET", "/elsewhere/deeper"));
  }

  @Test
  void setsOfEqualRulesAreEqualAndTheStringListsTheIdsBroadestFirst() {
    RuleSet set = RuleSet.of(List.of(rule("deep", "/a/b", null), rule("top", "/a", null)));
    RuleSet same = RuleSet.of(List.of(rule("deep", "/a/b", null), rule("top", "/a", null)));
    RuleSet fewer = RuleSet.of(List.of(rule("top", "/a", null)));

    assertThat(set).isEqualTo(same).hasSameHashCodeAs(same);
    assertThat(set).isNotEqualTo(fewer).isNotEqualTo("RuleSet[top, deep]");
    assertThat(set.hashCode())
        .as("different sets spread over hash buckets")
        .isNotEqualTo(fewer.hashCode());
    assertThat(set).hasToString("RuleSet[top, deep]");
    assertThat(RuleSet.empty()).hasToString("RuleSet[]");
  }

  @Test
  void anEmptySetOrARequestWithoutAPathMatchesNothing() {
    RuleSet set = RuleSet.of(List.of(rule("all", "/**", null)));

    assertThat(RuleSet.empty().matching("GET", "/a")).isEmpty();
    assertThat(RuleSet.of(List.of())).isSameAs(RuleSet.empty());
    assertThat(set.matching("GET", null)).isEmpty();
    assertThat(set.matching("GET", "/a")).extracting(Rule::id).containsExactly("all");
  }
}
