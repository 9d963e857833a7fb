package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.rate.Algorithm;
import dev.sluice.request.Actor;
import dev.sluice.request.Scope;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class RuleTest {

  @Test
  void idIsDerivedFromWhatIsCountedAndIsStable() {
    Rule rule = Rule.builder()
        .resource("/posts")
        .method("post")
        .actor("account")
        .limit(2, Duration.ofSeconds(1))
        .build();
    assertThat(rule.id()).isEqualTo("account:POST:/posts:1s");
    Rule again = Rule.builder()
        .actor(Actor.Account.INSTANCE)
        .limit(2, Duration.ofSeconds(1))
        .method("POST")
        .resource("/posts")
        .build();
    assertThat(again).isEqualTo(rule);
    assertThat(Rule.builder()
            .resource("/signup")
            .actor("ip")
            .limit(10, Duration.ofDays(1))
            .build()
            .id())
        .isEqualTo("ip:/signup:1d");
  }

  @Test
  void defaultsAreTokenBucketLocalEnforcedForEveryone() {
    Rule rule = Rule.builder().resource("/x").limit(5, Duration.ofMinutes(1)).build();
    assertThat(rule.algorithm()).isEqualTo(Algorithm.TOKEN_BUCKET);
    assertThat(rule.scope()).isEqualTo(Scope.LOCAL);
    assertThat(rule.actor()).isEqualTo(Actor.All.INSTANCE);
    assertThat(rule.shadow()).isFalse();
    assertThat(rule.limit().burst()).isEqualTo(5);
    assertThat(rule.method()).isEmpty();
  }

  @Test
  void invalidFieldsAreNamed() {
    assertThatThrownBy(() -> Rule.builder().limit(5, Duration.ofSeconds(1)).build())
        .hasMessageContaining("resource");
    assertThatThrownBy(() -> Rule.builder().resource("/x").build()).hasMessageContaining("limit");
    assertThatThrownBy(
            () -> Rule.builder().resource("/x").limit(0, Duration.ofSeconds(1)).build())
        .hasMessageContaining("limit must be >= 1 but was 0");
    assertThatThrownBy(() -> Rule.builder().method("GE T"))
        .hasMessageContaining("method")
        .hasMessageContaining("'GE T'");
    assertThatThrownBy(() -> Rule.builder()
            .id("has space")
            .resource("/x")
            .limit(1, Duration.ofSeconds(1))
            .build())
        .hasMessageContaining("'has space'");
  }

  @Test
  void actorsParseInEveryForm() {
    assertThat(Actor.parse("ALL")).isEqualTo(Actor.All.INSTANCE);
    assertThat(Actor.parse("ip")).isEqualTo(Actor.Ip.INSTANCE);
    assertThat(Actor.parse("account")).isEqualTo(Actor.Account.INSTANCE);
    assertThat(Actor.parse("device")).isEqualTo(Actor.Device.INSTANCE);
    assertThat(Actor.parse("header:X-Api-Key")).isEqualTo(new Actor.Header("x-api-key"));
    assertThat(Actor.parse("header:X-Api-Key").id()).isEqualTo("header:x-api-key");
    assertThat(Actor.parse("custom:tenant")).isEqualTo(new Actor.Custom("tenant"));
  }

  @Test
  void unknownActorListsTheAllowedForms() {
    for (String bad : new String[] {"acount", "header:", "header:a b", "ip:1", "custom:"}) {
      assertThatThrownBy(() -> Actor.parse(bad))
          .as(bad)
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining(bad.trim());
    }
    assertThatThrownBy(() -> Actor.parse("acount"))
        .hasMessageContaining("allowed: all, ip, account, device, header:<name>, custom:<name>");
  }

  @Test
  void periodsPrintCompactly() {
    assertThat(Rule.compact(Duration.ofDays(7))).isEqualTo("7d");
    assertThat(Rule.compact(Duration.ofMinutes(15))).isEqualTo("15m");
    assertThat(Rule.compact(Duration.ofMillis(1500))).isEqualTo("1500ms");
    assertThat(Rule.compact(Duration.ofNanos(3_000))).isEqualTo("3us");
    assertThat(Rule.compact(Duration.ofNanos(1_500))).isEqualTo("1500ns");
  }

  @Test
  void aMethodIsUpToThirtyTwoLettersDashesOrUnderscores() {
    assertThat(Rule.normalizeMethod(" az-_ ")).isEqualTo("AZ-_");
    assertThat(Rule.normalizeMethod("A".repeat(32))).hasSize(32);
    assertThatThrownBy(() -> Rule.normalizeMethod("A".repeat(33)))
        .hasMessage(
            "method must be an HTTP method such as GET or POST but was '" + "A".repeat(33) + "'");
    for (String outside : new String[] {"@", "[", "GET1"}) {
      assertThatThrownBy(() -> Rule.normalizeMethod(outside))
          .as(outside)
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void anIdIsUpTo200VisibleCharacters() {
    assertThat(rule("!".repeat(200)).id()).hasSize(200);
    assertThatThrownBy(() -> rule("x".repeat(201)))
        .hasMessageStartingWith("id must have 1 to 200 characters");
    assertThatThrownBy(() -> rule("a b")).hasMessageEndingWith("but was 'a b'");
    assertThatThrownBy(() -> rule("a\u007fb")).hasMessageStartingWith("id must have");
  }

  private static Rule rule(String id) {
    return Rule.builder().id(id).resource("/x").limit(1, Duration.ofSeconds(1)).build();
  }
}
