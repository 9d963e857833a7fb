package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.request.Actor;
import dev.sluice.request.RequestInfo;
import dev.sluice.request.ResourcePattern;
import dev.sluice.request.Scope;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** envoy/ratelimit's descriptor layout, mapped onto Sluice rules. */
class LyftDescriptorsTest {

  /** An envoy/ratelimit configuration as users write it, verbatim. */
  static final String HISTORY = """
      domain: sluice
      descriptors:
        - key: path
          value: /api/history/*
          descriptors:
            - key: account
              rate_limit:
                unit: minute
                requests_per_unit: 5
      """;

  private static RulesFileException error(String yaml) {
    return catchThrowableOfType(RulesFileException.class, () -> RulesFile.parse("lyft.yaml", yaml));
  }

  @Test
  void theIssueExampleIsFivePerMinutePerAccountOnHistory() throws Exception {
    RuleSet set = RulesFile.parse("lyft.yaml", HISTORY);

    assertThat(set.rules())
        .singleElement()
        .isEqualTo(new Rule(
            "account:/api/history/*:1m",
            ResourcePattern.parse("/api/history/*"),
            Optional.empty(),
            Actor.Account.INSTANCE,
            RateLimit.of(5, Duration.ofMinutes(1)),
            Algorithm.FIXED_WINDOW,
            Scope.LOCAL,
            false));
  }

  @Test
  void theIssueExampleLimitsEachAccountToFiveAMinute() throws Exception {
    VirtualTime time = new VirtualTime();
    RateRules rules = RateRules.builder()
        .rules(RulesFile.parse("lyft.yaml", HISTORY))
        .clock(time)
        .build();
    List<Boolean> alice = new ArrayList<>();
    for (int i = 0; i < 7; i++) {
      alice.add(allowed(rules, TestRequest.of("GET", "/api/history/1").account("alice")));
    }
    assertThat(alice).containsExactly(true, true, true, true, true, false, false);
    assertThat(allowed(rules, TestRequest.of("GET", "/api/history/2").account("bob")))
        .isTrue();
    assertThat(allowed(rules, TestRequest.of("GET", "/api/other").account("alice")))
        .isTrue();

    time.advance(Duration.ofMinutes(1));
    assertThat(allowed(rules, TestRequest.of("GET", "/api/history/1").account("alice")))
        .isTrue();
  }

  private static boolean allowed(RateRules rules, RequestInfo request) {
    return rules.check(request).toCompletableFuture().join().allowed();
  }

  @Test
  void everyKeyOfTheContract() throws Exception {
    RuleSet set = RulesFile.parse("lyft.yaml", """
        domain: edge
        descriptors:
          - key: generic_key
            value: everyone
            rate_limit: {unit: second, requests_per_unit: 100}
          - key: path
            value: /signup
            descriptors:
              - key: method
                value: post
                descriptors:
                  - key: remote_address
                    rate_limit: {unit: day, requests_per_unit: 10, name: signups-per-ip}
              - key: device
                shadow_mode: true
                rate_limit: {unit: hour, requests_per_unit: 3}
              - key: header:X-Api-Key
                rate_limit: {unit: minute, requests_per_unit: 60}
              - key: account
                rate_limit: {unlimited: true}
        """);

    assertThat(set.rules()).hasSize(4);
    Rule all = set.rules().get(0);
    assertThat(all.actor()).isEqualTo(Actor.All.INSTANCE);
    assertThat(all.resource()).isEqualTo(ResourcePattern.parse("/**"));
    Rule signup = set.rules().get(1);
    assertThat(signup.id()).isEqualTo("signups-per-ip");
    assertThat(signup.method()).hasValue("POST");
    assertThat(signup.actor()).isEqualTo(Actor.Ip.INSTANCE);
    assertThat(signup.limit()).isEqualTo(RateLimit.of(10, Duration.ofDays(1)));
    Rule device = set.rules().get(2);
    assertThat(device.shadow()).isTrue();
    assertThat(device.actor()).isEqualTo(Actor.Device.INSTANCE);
    assertThat(set.rules().get(3).actor().id()).isEqualTo("header:x-api-key");
  }

  @Test
  void errorsNameFileLineAndField() {
    RulesFileException unknownKey = error("""
        domain: sluice
        descriptors:
          - key: path
            value: /api/history/*
            descriptors:
              - key: acount
                rate_limit: {unit: minute, requests_per_unit: 5}
        """);
    assertThat(unknownKey)
        .hasMessageStartingWith(
            "lyft.yaml:6: descriptors[0].descriptors[0].key: unknown key 'acount'; allowed: path,");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            rate_limit:
              unit: fortnight
              requests_per_unit: 5
        """))
        .hasMessageStartingWith(
            "lyft.yaml:5: descriptors[0].rate_limit.unit: unknown unit 'fortnight'");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            rate_limit:
              unit: minute
        """))
        .hasMessage("lyft.yaml:5: descriptors[0].rate_limit.requests_per_unit:"
            + " missing field 'requests_per_unit'");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            value: alice
            rate_limit: {unit: minute, requests_per_unit: 5}
        """))
        .hasMessageStartingWith(
            "lyft.yaml:4: descriptors[0].value: key 'account' counts per" + " distinct value");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: path
            rate_limit: {unit: minute, requests_per_unit: 5}
        """))
        .hasMessageStartingWith("lyft.yaml:3: descriptors[0].value: key 'path' needs a 'value'");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            descriptors:
              - key: device
                rate_limit: {unit: minute, requests_per_unit: 0}
        """))
        .hasMessageStartingWith("lyft.yaml:5: descriptors[0].descriptors[0].key: a second actor");

    assertThat(error("""
        descriptors:
          - key: account
            rate_limit: {unit: minute, requests_per_unit: 5}
        """)).hasMessage("lyft.yaml:1: domain: missing field 'domain'");

    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            rate_limt: {unit: minute, requests_per_unit: 5}
        """))
        .hasMessageStartingWith("lyft.yaml:4: descriptors[0].rate_limt: unknown field");
  }

  @Test
  void twoDescriptorsThatDeriveTheSameIdAreAnError() {
    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            rate_limit: {unit: minute, requests_per_unit: 5}
          - key: account
            rate_limit: {unit: minute, requests_per_unit: 6}
        """))
        .hasMessageStartingWith("lyft.yaml:5: descriptors[1].id: duplicate rule id");
  }

  @Test
  void aNameThatIsNoRuleIdIsAnErrorOnTheNamesLine() {
    assertThat(error("""
        domain: sluice
        descriptors:
          - key: account
            rate_limit:
              unit: minute
              requests_per_unit: 5
              name: has space
        """))
        .hasMessageStartingWith("lyft.yaml:7: descriptors[0].rate_limit.name: id must have");
  }
}
