package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.request.RequestInfo;
import dev.sluice.request.Scope;
import dev.sluice.store.RateRequest;
import dev.sluice.store.RateStore;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class RateRulesTest {

  private final VirtualTime time = new VirtualTime();
  private final RecordingLogger log = new RecordingLogger();

  private static Rule.Builder rule(String id, String resource, String actor, long limit) {
    return Rule.builder()
        .id(id)
        .resource(resource)
        .actor(actor)
        .limit(limit, Duration.ofMinutes(1));
  }

  private RateRules.Builder engine(Rule... rules) {
    return RateRules.builder().rules(RuleSet.of(List.of(rules))).clock(time).logger(log);
  }

  private static RateVerdict now(CompletableFuture<RateVerdict> future) {
    assertThat(future).isDone();
    return future.join();
  }

  private static RateVerdict check(RateRules rules, RequestInfo request) {
    return now(rules.check(request).toCompletableFuture());
  }

  @Test
  void requestRejectedByOneRuleConsumesNothingFromTheOthers() {
    // envoyproxy/ratelimit#1060: the broad per-IP rule must not be used up by requests that the
    // narrow per-account rule rejects
    RateRules rules = engine(
            rule("per-ip", "/api/**", "ip", 10).build(),
            rule("history-per-account", "/api/history/*", "account", 2).build())
        .build();
    TestRequest history = TestRequest.of("GET", "/api/history/1").account("alice");
    List<Boolean> allowed = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      allowed.add(check(rules, history).allowed());
    }
    assertThat(allowed).containsExactly(true, true, false, false, false, false, false, false);

    RateVerdict other = check(rules, TestRequest.of("GET", "/api/other"));
    assertThat(other.decisions())
        .singleElement()
        .satisfies(d -> assertThat(d.decision().remaining()).isEqualTo(10 - 2 - 1));
  }

  @Test
  void guardsAnswersWhetherCheckWouldDecideAnythingAndFollowsAReplace() {
    RateRules rules = engine(
            rule("history", "/api/history/*", "ip", 10).method("GET").build())
        .build();
    assertThat(rules.guards("GET", "/api/history/7")).isTrue();
    assertThat(rules.guards("POST", "/api/history/7")).isFalse();
    assertThat(rules.guards("GET", "/api/ping")).isFalse();
    // where it says no, check decides nothing: the verdict of no rules
    assertThat(check(rules, TestRequest.of("GET", "/api/ping"))).isEqualTo(RateVerdict.noRules());
    rules.replace(RuleSet.of(List.of(rule("all", "/**", "all", 10).build())));
    assertThat(rules.guards("POST", "/api/ping")).isTrue();
  }

  @Test
  void evaluationStopsAtTheFirstRejection() {
    RateRules rules = engine(
            rule("tight", "/**", "all", 1).build(),
            rule("loose", "/x", "all", 100).build())
        .build();
    check(rules, TestRequest.of("GET", "/x"));
    RateVerdict rejected = check(rules, TestRequest.of("GET", "/x"));
    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.decisions()).extracting(d -> d.rule().id()).containsExactly("tight");
  }

  @Test
  void shadowRuleCountsAndReportsButNeverRejects() {
    List<RuleDecision> seen = new CopyOnWriteArrayList<>();
    RateRules rules = engine(rule("trial", "/x", "all", 1).shadow(true).build())
        .listener(new RateListener() {
          @Override
          public void onDecision(RuleDecision decision) {
            seen.add(decision);
          }
        })
        .build();
    assertThat(check(rules, TestRequest.of("GET", "/x")).allowed()).isTrue();
    RateVerdict second = check(rules, TestRequest.of("GET", "/x"));
    assertThat(second.allowed()).isTrue();
    assertThat(second.decisions()).singleElement().satisfies(d -> {
      assertThat(d.shadowRejected()).isTrue();
      assertThat(d.rejects()).isFalse();
    });
    assertThat(seen).extracting(RuleDecision::shadowRejected).containsExactly(false, true);
  }

  @Test
  void shadowPermitsAreGivenBackWhenAnEnforcedRuleRejects() {
    RateRules rules = engine(
            rule("shadow-broad", "/**", "all", 5).shadow(true).build(),
            rule("enforced", "/x", "all", 1).build())
        .build();
    check(rules, TestRequest.of("GET", "/x"));
    for (int i = 0; i < 10; i++) {
      assertThat(check(rules, TestRequest.of("GET", "/x")).allowed()).isFalse();
    }
    RateVerdict y = check(rules, TestRequest.of("GET", "/y"));
    assertThat(y.decisions().get(0).decision().remaining()).isEqualTo(3);
  }

  @Test
  void longAndOddHeaderValuesAreBoundedAndNeverThrow() {
    RateRules rules =
        engine(rule("per-key", "/x", "header:X-Api-Key", 1).build()).build();
    String huge = "k".repeat(100_000);
    String odd = "caf\u00e9\u0000\r\n\uD83D\uDE00 ~";
    for (String value : new String[] {huge, odd, "~looks-hashed", " "}) {
      RateVerdict first = check(rules, TestRequest.of("GET", "/x").header("X-Api-Key", value));
      assertThat(first.allowed()).as(value.length() + " chars").isTrue();
      String key = first.decisions().get(0).actorKey();
      assertThat(key).hasSizeLessThanOrEqualTo(64).startsWith("~");
      assertThat(check(rules, TestRequest.of("GET", "/x").header("x-api-key", value))
              .allowed())
          .as("the same value is the same actor")
          .isFalse();
    }
    assertThat(check(rules, TestRequest.of("GET", "/x").header("X-Api-Key", huge + "!"))
            .allowed())
        .as("a different long value is another actor")
        .isTrue();
    assertThat(check(rules, TestRequest.of("GET", "/x").header("X-Api-Key", "")).decisions())
        .as("an empty value is a missing one")
        .isEmpty();
  }

  @Test
  void requestWithoutAnIpIsCountedUnderOneSharedKey() {
    RateRules rules = engine(rule("per-ip", "/x", "ip", 1).build()).build();
    assertThat(check(rules, TestRequest.of("GET", "/x").ip(null)).allowed()).isTrue();
    RateVerdict second = check(rules, TestRequest.of("GET", "/x").ip(""));
    assertThat(second.allowed()).isFalse();
    assertThat(second.rejectedBy().orElseThrow().actorKey()).isEqualTo("unknown");
  }

  @Test
  void customActorsCountByTheirExtractor() {
    RateRules rules = engine(rule("per-tenant", "/x", "custom:tenant", 1).build())
        .customActor("tenant", r -> r.header("X-Tenant").map(t -> t.split("\\.")[1]))
        .build();
    assertThat(check(rules, TestRequest.of("GET", "/x").header("X-Tenant", "eu.acme"))
            .allowed())
        .isTrue();
    assertThat(check(rules, TestRequest.of("GET", "/x").header("X-Tenant", "us.acme"))
            .allowed())
        .isFalse();
    // the extractor throws on a value without a dot: the rule does not apply, nothing fails
    assertThat(
            check(rules, TestRequest.of("GET", "/x").header("X-Tenant", "odd")).decisions())
        .isEmpty();
    // told at the first failure, and only then
    assertThat(log.messages).filteredOn(m -> m.contains("custom:tenant")).hasSize(1);
    check(rules, TestRequest.of("GET", "/x").header("X-Tenant", "odder"));
    assertThat(log.messages).filteredOn(m -> m.contains("custom:tenant")).hasSize(1);
  }

  @Test
  void unregisteredCustomActorIsNamed() {
    assertThatThrownBy(() -> engine(rule("r", "/x", "custom:geo", 1).build()).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("custom:geo")
        .hasMessageContaining("'r'");
  }

  @Test
  void localRulesAnswerAnAlreadyCompletedStage() {
    RateRules rules = engine(rule("a", "/x", "all", 5).build()).build();
    assertThat(rules.check(TestRequest.of("GET", "/x")).toCompletableFuture()).isDone();
    assertThat(rules.check(TestRequest.of("GET", "/none")).toCompletableFuture())
        .isDone();
  }

  @Test
  void globalRulesGoToTheStoreInOneRoundTrip() {
    InMemoryRateStore store = new InMemoryRateStore(time).holding();
    RateRules rules = engine(
            rule("local", "/**", "ip", 10).build(),
            rule("g1", "/api/**", "ip", 10).scope(Scope.GLOBAL).build(),
            rule("g2", "/api/x", "all", 10)
                .scope(Scope.GLOBAL)
                .algorithm(Algorithm.GCRA)
                .build())
        .store(store)
        .build();
    CompletableFuture<RateVerdict> pending =
        rules.check(TestRequest.of("GET", "/api/x")).toCompletableFuture();
    assertThat(pending).isNotDone();
    store.release();
    RateVerdict verdict = pending.join();
    assertThat(verdict.allowed()).isTrue();
    assertThat(verdict.decisions())
        .extracting(d -> d.rule().id())
        .containsExactly("local", "g1", "g2");
    assertThat(store.calls)
        .singleElement()
        .satisfies(
            call -> assertThat(call).extracting(RateRequest::ruleId).containsExactly("g1", "g2"));
    assertThat(store.calls.get(0).get(1).algorithm()).isEqualTo(Algorithm.GCRA);
  }

  @Test
  void globalRejectionGivesBackLocalAndGlobalPermits() {
    InMemoryRateStore store = new InMemoryRateStore(time);
    RateRules rules = engine(
            rule("local", "/**", "ip", 10).build(),
            rule("g-broad", "/api/**", "ip", 10).scope(Scope.GLOBAL).build(),
            rule("g-narrow", "/api/x", "all", 1).scope(Scope.GLOBAL).build())
        .store(store)
        .build();
    assertThat(check(rules, TestRequest.of("GET", "/api/x")).allowed()).isTrue();
    RateVerdict rejected = check(rules, TestRequest.of("GET", "/api/x"));
    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.rejectedBy().orElseThrow().rule().id()).isEqualTo("g-narrow");
    assertThat(store.refunds).extracting(RateRequest::ruleId).containsExactly("g-broad");

    RateVerdict other = check(rules, TestRequest.of("GET", "/api/y"));
    assertThat(other.decisions()).extracting(d -> d.decision().remaining()).containsExactly(8L, 8L);
  }

  @Test
  void checkNowDecidesLocalRulesWithoutAFutureAndLeavesStoreRulesToCheck() {
    RateRules local = engine(rule("local", "/x", "all", 1).build()).build();
    RateVerdict first = local.checkNow(TestRequest.of("GET", "/x"));
    assertThat(first.allowed()).isTrue();
    assertThat(local.checkNow(TestRequest.of("GET", "/x")).allowed()).isFalse();
    assertThat(local.checkNow(TestRequest.of("GET", "/other"))).isSameAs(RateVerdict.noRules());

    InMemoryRateStore store = new InMemoryRateStore(time);
    RateRules mixed = engine(
            rule("local", "/x", "all", 1).build(),
            rule("global", "/x", "ip", 10).scope(Scope.GLOBAL).build())
        .store(store)
        .build();
    assertThat(mixed.checkNow(TestRequest.of("GET", "/x")))
        .as("a store rule is in force")
        .isNull();
    assertThat(check(mixed, TestRequest.of("GET", "/x")).allowed())
        .as("checkNow counted nothing: the one local permit is still there")
        .isTrue();
    assertThat(store.calls).hasSize(1);
  }

  @Test
  void localRejectionNeverReachesTheStore() {
    InMemoryRateStore store = new InMemoryRateStore(time);
    RateRules rules = engine(
            rule("local", "/x", "all", 1).build(),
            rule("global", "/x", "ip", 10).scope(Scope.GLOBAL).build())
        .store(store)
        .build();
    check(rules, TestRequest.of("GET", "/x"));
    assertThat(check(rules, TestRequest.of("GET", "/x")).allowed()).isFalse();
    assertThat(store.calls).hasSize(1);
  }

  @Test
  void withoutAStoreGlobalRulesRunLocallyAndSaySoOnce() {
    List<Rule> told = new CopyOnWriteArrayList<>();
    RateRules rules = engine(
            rule("g1", "/x", "all", 1).scope(Scope.GLOBAL).build(),
            rule("g2", "/y", "all", 1).scope(Scope.GLOBAL).build())
        .listener(new RateListener() {
          @Override
          public void onGlobalRunsLocally(Rule rule) {
            told.add(rule);
          }
        })
        .build();
    rules.replace(
        RuleSet.of(List.of(rule("g3", "/z", "all", 1).scope(Scope.GLOBAL).build())));
    RateVerdict first = now(rules.check(TestRequest.of("GET", "/z")).toCompletableFuture());
    assertThat(first.allowed()).isTrue();
    assertThat(check(rules, TestRequest.of("GET", "/z")).allowed()).isFalse();
    assertThat(log.messages).filteredOn(m -> m.contains("no shared store")).hasSize(1);
    assertThat(told).hasSize(1);
  }

  @Test
  void replaceKeepsTheCountsOfUnchangedRulesOnly() {
    Rule kept = rule("kept", "/a", "all", 2).build();
    Rule changed = rule("changed", "/b", "all", 2).build();
    RateRules rules = engine(kept, changed).build();
    for (String path : new String[] {"/a", "/a", "/b", "/b"}) {
      assertThat(check(rules, TestRequest.of("GET", path)).allowed()).isTrue();
    }
    rules.replace(RuleSet.of(List.of(
        rule("kept", "/a", "all", 2).method("GET").build(), // same identity and limits
        rule("changed", "/b", "all", 3).build(), // new limit: counts start afresh
        rule("new", "/c", "all", 1).build())));
    assertThat(check(rules, TestRequest.of("GET", "/a")).allowed()).isFalse();
    assertThat(check(rules, TestRequest.of("GET", "/b")).allowed()).isTrue();
    assertThat(check(rules, TestRequest.of("GET", "/c")).allowed()).isTrue();
    assertThat(rules.rules().rules())
        .extracting(Rule::id)
        .containsExactly("kept", "changed", "new");
  }

  @Test
  void failedReplaceKeepsTheOldRules() {
    RateRules rules = engine(rule("a", "/a", "all", 1).build()).build();
    RuleSet before = rules.rules();
    assertThatThrownBy(() ->
            rules.replace(RuleSet.of(List.of(rule("b", "/b", "custom:nobody", 1).build()))))
        .isInstanceOf(IllegalArgumentException.class);
    assertThat(rules.rules()).isSameAs(before);
  }

  @Test
  void limitTheAlgorithmCannotHoldNamesTheRule() {
    RateRules rules = engine(rule("a", "/a", "all", 1).build()).build();
    assertThatThrownBy(
            () -> rules.replace(RuleSet.of(List.of(rule("huge-window", "/w", "all", 5_000_000_000L)
                .algorithm(Algorithm.FIXED_WINDOW)
                .build()))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("rule 'huge-window': ");
    assertThat(rules.rules().rules()).extracting(Rule::id).containsExactly("a");
  }

  @Test
  void throwingListenerNeverFailsARequest() {
    RateRules rules = engine(rule("a", "/a", "all", 1).build())
        .listener(new RateListener() {
          @Override
          public void onDecision(RuleDecision decision) {
            throw new IllegalStateException("metrics down");
          }
        })
        .build();
    assertThat(check(rules, TestRequest.of("GET", "/a")).allowed()).isTrue();
  }

  @Test
  void verdictShowsTheMostRestrictiveDecision() {
    RateRules rules = engine(
            rule("roomy", "/**", "all", 100).build(),
            rule("tight", "/a", "all", 3).build(),
            rule("shadow", "/a", "account", 1).shadow(true).build())
        .build();
    RateVerdict verdict = check(rules, TestRequest.of("GET", "/a").account("x"));
    assertThat(verdict.mostRestrictive().map(d -> d.rule().id())).isEqualTo(Optional.of("tight"));
    assertThat(verdict.delayNanos()).isZero();
  }

  @Test
  void eachLocalRuleTellsHowManyKeysItHoldsUpToItsBound() {
    RateRules rules =
        engine(rule("per-ip", "/api/**", "ip", 10).build()).maxKeysPerRule(2).build();
    check(rules, TestRequest.of("GET", "/api/a").ip("10.0.0.1"));
    check(rules, TestRequest.of("GET", "/api/a").ip("10.0.0.2"));
    check(rules, TestRequest.of("GET", "/api/a").ip("10.0.0.3"));

    assertThat(rules.maxKeysPerRule()).isEqualTo(2);
    assertThat(rules.trackedKeys("per-ip")).hasValue(2);
    assertThat(rules.trackedKeys("no-such-rule")).isEmpty();
  }

  @Test
  void theEngineTellsWhichSharedStoreItUses() {
    InMemoryRateStore store = new InMemoryRateStore(time);

    assertThat(engine(rule("local", "/x", "all", 1).build()).build().store()).isEmpty();
    assertThat(
            engine(rule("local", "/x", "all", 1).build()).store(store).build().store())
        .containsSame(store);
  }

  @Test
  void aRequestNoRuleGuardsIsNotSentToTheStore() {
    InMemoryRateStore store = new InMemoryRateStore(time);
    RateRules rules = engine(rule("global", "/x", "ip", 10).scope(Scope.GLOBAL).build())
        .store(store)
        .build();

    assertThat(check(rules, TestRequest.of("GET", "/other"))).isSameAs(RateVerdict.noRules());
    assertThat(store.calls).isEmpty();
  }

  @Test
  void aStoreThatAnswersTheWrongNumberOfDecisionsLeavesTheLocalRulesToDecideAndIsLoggedOnce() {
    RateStore broken = new RateStore() {
      @Override
      public CompletionStage<List<RateDecision>> tryAcquire(List<RateRequest> requests) {
        return CompletableFuture.completedFuture(List.of()); // one decision per request promised
      }

      @Override
      public CompletionStage<Void> refund(List<RateRequest> requests) {
        return CompletableFuture.completedFuture(null);
      }

      @Override
      public String describe() {
        return "broken-store";
      }

      @Override
      public void close() {}
    };
    RateRules rules = engine(
            rule("local", "/x", "all", 3).build(),
            rule("global", "/x", "ip", 1).scope(Scope.GLOBAL).build())
        .store(broken)
        .build();

    List<RateVerdict> verdicts = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      verdicts.add(check(rules, TestRequest.of("GET", "/x")));
    }

    assertThat(verdicts)
        .as("the global rule's one permit is not counted; the local rule's three are")
        .extracting(RateVerdict::allowed)
        .containsExactly(true, true, true, false);
    assertThat(verdicts.get(0).decisions()).extracting(d -> d.rule().id()).containsExactly("local");
    assertThat(verdicts.get(3).rejectedBy().orElseThrow().rule().id()).isEqualTo("local");
    assertThat(log.messages)
        .filteredOn(
            m -> m.contains("shared store broken-store failed a request instead of degrading"))
        .singleElement()
        .satisfies(m -> assertThat(m).startsWith("WARNING"));
  }
}
