package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rate.RateOutcome;
import dev.sluice.request.Scope;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Decisions written into a reused {@link RuleOutcomes} say what {@link RateVerdict}s say: the same
 * rules, answers, rejection, headers' choice and shaper delay, and the same counting.
 */
class RuleOutcomesTest {

  private final VirtualTime time = new VirtualTime();

  private static Rule.Builder rule(String id, String resource, String actor, long limit) {
    return Rule.builder()
        .id(id)
        .resource(resource)
        .actor(actor)
        .limit(limit, Duration.ofSeconds(1));
  }

  private static List<Rule> rules() {
    return List.of(
        rule("per-ip", "/api/**", "ip", 20).build(),
        rule("trial", "/api/**", "all", 8).shadow(true).build(),
        rule("history", "/api/history/*", "account", 3).build(),
        rule("shaped", "/api/upload", "ip", 5)
            .algorithm(dev.sluice.rate.Algorithm.LEAKY_BUCKET_SHAPER)
            .build());
  }

  @Test
  void aReusedHolderAnswersWhatTheVerdictAnswersOnARandomTrace() {
    // two engines with the same rules on one clock: one answers records, one fills a holder
    List<RuleDecision> seenByRecords = new ArrayList<>();
    List<String> seenInPlace = new ArrayList<>();
    RateRules records = RateRules.builder()
        .rules(RuleSet.of(rules()))
        .clock(time)
        .listener(new RateListener() {
          @Override
          public void onDecision(RuleDecision decision) {
            seenByRecords.add(decision);
          }
        })
        .build();
    RateRules inPlace = RateRules.builder()
        .rules(RuleSet.of(rules()))
        .clock(time)
        .listener(new RateListener() {
          @Override
          public void onDecision(Rule rule, RateOutcome outcome, String actorKey) {
            seenInPlace.add(rule.id() + ":" + actorKey + ":" + outcome.allowed());
          }
        })
        .build();
    RuleOutcomes holder = new RuleOutcomes();
    Random random = new Random(7);
    String[] paths = {"/api/history/1", "/api/upload", "/api/other", "/static/x"};
    int rejected = 0;
    for (int i = 0; i < 3_000; i++) {
      time.advanceNanos(random.nextInt(40) * 1_000_000L);
      TestRequest request = TestRequest.of("GET", paths[random.nextInt(paths.length)])
          .ip("10.0.0." + random.nextInt(3))
          .account(random.nextBoolean() ? "alice" : null);
      RateVerdict expected = records.checkNow(request);

      assertThat(inPlace.checkNow(request, holder)).isTrue();

      assertThat(holder.toVerdict()).isEqualTo(expected);
      assertThat(holder.allowed()).isEqualTo(expected.allowed());
      assertThat(holder.delayNanos()).isEqualTo(expected.delayNanos());
      int shown = holder.mostRestrictiveIndex();
      assertThat(shown < 0 ? null : holder.decision(shown))
          .isEqualTo(expected.mostRestrictiveOrNull());
      rejected += expected.allowed() ? 0 : 1;
    }
    assertThat(rejected).as("the trace is rejected some of the time").isBetween(1, 2_999);
    assertThat(seenInPlace)
        .isEqualTo(seenByRecords.stream()
            .map(d -> d.rule().id() + ":" + d.actorKey() + ":" + d.decision().allowed())
            .toList());
  }

  @Test
  void aHolderFilledAgainForgetsTheRequestBefore() {
    RateRules engine =
        RateRules.builder().rules(RuleSet.of(rules())).clock(time).build();
    RuleOutcomes holder = new RuleOutcomes();
    engine.checkNow(TestRequest.of("GET", "/api/history/1").account("alice"), holder);
    assertThat(holder.size()).isEqualTo(3);

    engine.checkNow(TestRequest.of("GET", "/static/x"), holder);

    assertThat(holder.size()).isZero();
    assertThat(holder.allowed()).isTrue();
    assertThat(holder.mostRestrictiveIndex()).isEqualTo(-1);
    assertThat(holder.toVerdict()).isSameAs(RateVerdict.noRules());
    assertThatThrownBy(() -> holder.rule(0)).isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void withAGlobalRuleNothingIsDecidedInPlaceAndNothingCounted() {
    InMemoryRateStore store = new InMemoryRateStore(time);
    RateRules engine = RateRules.builder()
        .rules(RuleSet.of(List.of(
            rule("local", "/**", "ip", 1).build(),
            rule("global", "/api/**", "ip", 10).scope(Scope.GLOBAL).build())))
        .clock(time)
        .store(store)
        .build();
    RuleOutcomes holder = new RuleOutcomes();
    engine.checkNow(TestRequest.of("GET", "/static/x"), new RuleOutcomes());

    assertThat(engine.checkNow(TestRequest.of("GET", "/static/x"), holder)).isFalse();

    assertThat(holder.size()).isZero();
    assertThat(engine
            .check(TestRequest.of("GET", "/static/x"))
            .toCompletableFuture()
            .join()
            .allowed())
        .as("the first call counted nothing: the local rule's one permit is still there")
        .isTrue();
  }

  @Test
  void aVerdictCopiedInReadsBackTheSame() {
    RateRules engine =
        RateRules.builder().rules(RuleSet.of(rules())).clock(time).build();
    TestRequest request = TestRequest.of("GET", "/api/history/1").account("alice");
    for (int i = 0; i < 5; i++) {
      RateVerdict verdict = engine.checkNow(request);

      RuleOutcomes copy = new RuleOutcomes().set(verdict);

      assertThat(copy.toVerdict()).isEqualTo(verdict);
      assertThat(copy).as("described as its verdict").hasToString(verdict.toString());
      assertThat(copy.rejectedIndex())
          .isEqualTo(verdict.rejectedBy().map(verdict.decisions()::indexOf).orElse(-1));
    }
  }
}
