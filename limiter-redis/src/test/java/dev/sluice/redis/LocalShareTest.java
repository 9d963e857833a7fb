package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateDecision;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.FailurePolicy;
import dev.sluice.store.RateRequest;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The decisions of global rules while Redis is down: a limit of 10 per second on 2 nodes. */
class LocalShareTest {

  private final VirtualTime time = new VirtualTime();
  private final Recent recent = new Recent();
  private final RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1));

  private LocalShare share(FailurePolicy policy) {
    return new LocalShare(policy, 2, time, recent);
  }

  private RateRequest request(long cost) {
    return new RateRequest("rule", "actor", Algorithm.TOKEN_BUCKET, limit, cost);
  }

  private static int admitted(LocalShare share, RateRequest request, int tries) {
    int admitted = 0;
    for (int i = 0; i < tries; i++) {
      if (share.decide(request).allowed()) {
        admitted++;
      }
    }
    return admitted;
  }

  private long recentCount() {
    return recent.count(Recent.Key.of(request(1)), time.nanoTime());
  }

  @Test
  void aNodeAdmitsItsShareOfTheLimit() {
    LocalShare share = share(FailurePolicy.LOCAL);

    assertThat(admitted(share, request(1), 8)).isEqualTo(5);
    RateDecision refused = share.decide(request(1));
    assertThat(refused.allowed()).isFalse();
    assertThat(refused.limit()).isEqualTo(5);
  }

  @Test
  void theShareStartsWithWhatTheNodeAdmittedInTheLastPeriod() {
    recent.add(request(3), time.nanoTime());
    LocalShare share = share(FailurePolicy.LOCAL);

    assertThat(admitted(share, request(1), 8)).isEqualTo(2);
  }

  @Test
  void aFloodOfNewActorsDuringAnOutageKeepsNoMarkPerActor() {
    recent.add(request(3), time.nanoTime());
    LocalShare share = share(FailurePolicy.LOCAL);
    share.outageStarted();

    for (int i = 0; i < 200_000; i++) {
      share.decide(new RateRequest("rule", "flood-" + i, Algorithm.TOKEN_BUCKET, limit, 1));
    }

    // only the pair with recent permits waits for its seed; the new actors left nothing behind
    assertThat(share.unseededPairs()).isEqualTo(1);
    assertThat(admitted(share, request(1), 8)).isEqualTo(2);
    assertThat(share.unseededPairs()).isZero();
  }

  @Test
  void theSeedNeverExceedsTheShare() {
    recent.add(request(9), time.nanoTime());
    LocalShare share = share(FailurePolicy.LOCAL);

    assertThat(admitted(share, request(1), 3)).isZero();
    // the seed is not a debt: Redis counted it
    assertThat(share.takeDebts()).isEmpty();
  }

  @Test
  void localAdmissionsAreDebtsAndRecentCounts() {
    LocalShare share = share(FailurePolicy.LOCAL);

    admitted(share, request(1), 3);

    assertThat(recentCount()).isEqualTo(3);
    assertThat(share.takeDebts()).singleElement().satisfies(charge -> {
      assertThat(charge.request().cost()).isEqualTo(3);
      assertThat(charge.madeAtNanos()).isEqualTo(time.nanoTime());
    });
    assertThat(share.takeDebts()).isEmpty();
  }

  @Test
  void aRejectionOwesNothing() {
    LocalShare share = share(FailurePolicy.LOCAL);
    admitted(share, request(1), 5);
    share.takeDebts();

    assertThat(share.decide(request(1)).allowed()).isFalse();

    assertThat(share.takeDebts()).isEmpty();
    assertThat(recentCount()).isEqualTo(5);
  }

  @Test
  void anOutageStartsFreshSharesSeededWithTheRecentCounts() {
    LocalShare share = share(FailurePolicy.LOCAL);
    assertThat(share.decide(request(1)).allowed()).isTrue();
    // meanwhile this node admitted 3 through Redis
    recent.add(request(3), time.nanoTime());

    share.outageStarted();

    assertThat(admitted(share, request(1), 5)).isEqualTo(1);
  }

  @Test
  void withoutANewOutageTheShareKeepsCounting() {
    LocalShare share = share(FailurePolicy.LOCAL);
    assertThat(share.decide(request(1)).allowed()).isTrue();
    recent.add(request(3), time.nanoTime());

    assertThat(admitted(share, request(1), 5)).isEqualTo(4);
  }

  @Test
  void theShareRefillsOnTheNodesClock() {
    LocalShare share = share(FailurePolicy.LOCAL);
    admitted(share, request(1), 5);

    time.advance(Duration.ofMillis(200));

    assertThat(admitted(share, request(1), 3)).isEqualTo(1);
  }

  @Test
  void aRefundGivesThePermitBackEverywhere() {
    LocalShare share = share(FailurePolicy.LOCAL);
    admitted(share, request(1), 5);

    share.refund(request(2));

    assertThat(recentCount()).isEqualTo(3);
    assertThat(share.takeDebts())
        .singleElement()
        .satisfies(charge -> assertThat(charge.request().cost()).isEqualTo(3));
    assertThat(admitted(share, request(1), 5)).isEqualTo(2);
  }

  @Test
  void aRefundWithoutALocalShareOnlyCorrectsTheCounts() {
    LocalShare share = share(FailurePolicy.ALLOW);
    share.decide(request(3));

    share.refund(request(1));

    assertThat(recentCount()).isEqualTo(2);
  }

  @Test
  void allowAdmitsEverythingAndOwesIt() {
    LocalShare share = share(FailurePolicy.ALLOW);

    assertThat(admitted(share, request(1), 20)).isEqualTo(20);
    RateDecision decision = share.decide(request(4));

    assertThat(decision.allowed()).isTrue();
    assertThat(decision.limit()).isEqualTo(10);
    assertThat(decision.remaining()).isEqualTo(6);
    assertThat(share.decide(request(12)).remaining()).isZero();
    assertThat(share.takeDebts())
        .singleElement()
        .satisfies(charge -> assertThat(charge.request().cost()).isEqualTo(10));
  }

  @Test
  void denyRefusesEverythingUntilTheNextProbeAndOwesNothing() {
    LocalShare share = share(FailurePolicy.DENY);

    RateDecision decision = share.decide(request(1));

    assertThat(decision.allowed()).isFalse();
    assertThat(decision.limit()).isEqualTo(10);
    assertThat(decision.retryAfterNanos()).isEqualTo(Guard.OPEN_FOR.toNanos());
    assertThat(share.takeDebts()).isEmpty();
    assertThat(recentCount()).isZero();
  }

  @Test
  void afterALossTheShareDecidesWhateverThePolicy() {
    LocalShare share = share(FailurePolicy.DENY);

    int admitted = 0;
    for (int i = 0; i < 8; i++) {
      if (share.decideOnShare(request(1)).allowed()) {
        admitted++;
      }
    }

    assertThat(admitted).isEqualTo(5);
  }

  @Test
  void anUnansweredChargeIsTakenAgain() {
    LocalShare share = share(FailurePolicy.LOCAL);
    admitted(share, request(1), 2);
    Debts.Charge charge = share.takeDebts().get(0);

    share.unanswered(charge);

    assertThat(share.takeDebts()).containsExactly(charge);
  }

  @Test
  void aLossForgetsTheDebts() {
    LocalShare share = share(FailurePolicy.LOCAL);
    admitted(share, request(1), 2);

    share.forgetDebts();

    assertThat(share.takeDebts()).isEmpty();
  }

  @Test
  void theShareIsTheLimitAndBurstDividedRoundedDownButAtLeastOne() {
    RateLimit global = new RateLimit(10, Duration.ofSeconds(2), 7);

    assertThat(LocalShare.nodeShare(global, 3))
        .isEqualTo(new RateLimit(3, Duration.ofSeconds(2), 2));
    assertThat(LocalShare.nodeShare(global, 20))
        .isEqualTo(new RateLimit(1, Duration.ofSeconds(2), 1));
  }

  @Test
  void itReadsTheNodesClock() {
    assertThat(share(FailurePolicy.LOCAL).nanoTime()).isEqualTo(time.nanoTime());
  }
}
