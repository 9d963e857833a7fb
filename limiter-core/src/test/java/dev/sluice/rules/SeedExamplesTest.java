package dev.sluice.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The three examples of the design documents, written as a rules file and run in virtual time. */
class SeedExamplesTest {

  static final String SEEDS = """
      rules:
        - id: posts-per-user          # a user posts at most 2 messages a second
          resource: /posts
          method: POST
          actor: account
          limit: 2
          unit: second
        - id: signups-per-ip          # at most 10 accounts a day from one IP
          resource: /accounts
          method: POST
          actor: ip
          limit: 10
          unit: day
          algorithm: sliding-log      # exact: never 11 in any 24 hours
        - id: reward-claims-per-device  # a device claims a reward at most 5 times a week
          resource: /rewards/*/claim
          method: POST
          actor: device
          limit: 5
          unit: week
          algorithm: sliding-log
      """;

  private final VirtualTime time = new VirtualTime();
  private RateRules engine;

  @BeforeEach
  void setUp() throws Exception {
    engine = RateRules.builder()
        .rules(RulesFile.parse("seeds.yaml", SEEDS))
        .clock(time)
        .build();
  }

  private RateVerdict check(TestRequest request) {
    return engine.check(request).toCompletableFuture().join();
  }

  @Test
  void aUserPostsAtMostTwoMessagesASecond() {
    TestRequest alice = TestRequest.of("POST", "/posts").account("alice");
    assertThat(check(alice).allowed()).isTrue();
    assertThat(check(alice).allowed()).isTrue();
    RateVerdict third = check(alice);
    assertThat(third.allowed()).isFalse();
    assertThat(third.rejectedBy().orElseThrow().rule().id()).isEqualTo("posts-per-user");
    assertThat(third.rejectedBy().orElseThrow().decision().retryAfterNanos()).isPositive();
    assertThat(check(TestRequest.of("POST", "/posts").account("bob")).allowed()).isTrue();
    assertThat(check(TestRequest.of("GET", "/posts").account("alice")).decisions())
        .isEmpty();

    time.advance(Duration.ofMillis(499));
    assertThat(check(alice).allowed())
        .as("the token bucket refills one post per 500 ms")
        .isFalse();
    time.advance(Duration.ofMillis(1));
    assertThat(check(alice).allowed()).isTrue();
    time.advance(Duration.ofSeconds(1));
    assertThat(check(alice).allowed()).isTrue();
    assertThat(check(alice).allowed()).isTrue();
    assertThat(check(alice).allowed()).isFalse();
  }

  @Test
  void atMostTenAccountsADayFromOneIp() {
    TestRequest signup = TestRequest.of("POST", "/accounts").ip("203.0.113.9");
    for (int i = 0; i < 10; i++) {
      assertThat(check(signup).allowed()).as("signup %d", i + 1).isTrue();
      time.advance(Duration.ofHours(2));
    }
    // 20 hours after the first sign-up: the day still holds ten
    RateVerdict eleventh = check(signup);
    assertThat(eleventh.allowed()).isFalse();
    assertThat(eleventh.rejectedBy().orElseThrow().decision().retryAfterNanos())
        .isEqualTo(Duration.ofHours(4).toNanos());
    assertThat(check(TestRequest.of("POST", "/accounts").ip("198.51.100.1")).allowed())
        .isTrue();

    time.advance(Duration.ofHours(4)); // the first sign-up leaves the 24-hour window
    assertThat(check(signup).allowed()).isTrue();
    assertThat(check(signup).allowed()).isFalse();
  }

  @Test
  void aDeviceClaimsARewardAtMostFiveTimesAWeek() {
    for (int i = 0; i < 5; i++) {
      TestRequest claim = TestRequest.of("POST", "/rewards/" + i + "/claim").device("phone-1");
      assertThat(check(claim).allowed()).as("claim %d", i + 1).isTrue();
      time.advance(Duration.ofDays(1));
    }
    TestRequest sixth = TestRequest.of("POST", "/rewards/99/claim").device("phone-1");
    assertThat(check(sixth).allowed()).as("day 5").isFalse();
    time.advance(Duration.ofDays(2).minusSeconds(1));
    assertThat(check(sixth).allowed())
        .as("a second before a week after the first")
        .isFalse();
    assertThat(
            check(TestRequest.of("POST", "/rewards/99/claim").device("phone-2")).allowed())
        .isTrue();

    time.advance(Duration.ofSeconds(1));
    assertThat(check(sixth).allowed()).as("a week after the first claim").isTrue();
    assertThat(check(sixth).allowed()).isFalse();
  }

  @Test
  void aRequestWithoutTheActorIsNotSubjectToTheRule() {
    TestRequest anonymous = TestRequest.of("POST", "/rewards/1/claim");
    for (int i = 0; i < 20; i++) {
      RateVerdict verdict = check(anonymous);
      assertThat(verdict.allowed()).isTrue();
      assertThat(verdict.decisions()).isEmpty();
    }
  }
}
