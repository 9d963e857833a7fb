package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** What a node remembers of its own recent admissions, to give back to Redis. */
class RecentTest {

  private static final long PERIOD = Duration.ofSeconds(10).toNanos();
  // near the end of the nano clock's range, so the windows' arithmetic crosses the overflow
  private static final long T0 = Long.MAX_VALUE - 3 * PERIOD;

  private final Recent recent = new Recent();
  private final RateLimit limit = RateLimit.of(5, Duration.ofSeconds(10)).withBurst(8);

  private RateRequest request(long cost) {
    return new RateRequest("rule", "actor", Algorithm.TOKEN_BUCKET, limit, cost);
  }

  private long count(long now) {
    return recent.count(Recent.Key.of(request(1)), now);
  }

  @Test
  void nothingIsRememberedBeforeTheFirstAdmission() {
    assertThat(recent.isEmpty()).isTrue();
    assertThat(count(T0)).isZero();
  }

  @Test
  void theAdmissionsOfTheCurrentPeriodAddUpTheirCosts() {
    recent.add(request(2), T0);
    recent.add(request(1), T0 + PERIOD - 1);

    assertThat(recent.isEmpty()).isFalse();
    assertThat(count(T0 + PERIOD - 1)).isEqualTo(3);
  }

  @Test
  void thePreviousPeriodCountsByHowMuchOfItStillOverlapsTheLastPeriod() {
    recent.add(request(4), T0);

    assertThat(count(T0 + PERIOD)).isEqualTo(4);
    assertThat(count(T0 + PERIOD + PERIOD / 2)).isEqualTo(2);
    assertThat(count(T0 + PERIOD + PERIOD / 4)).isEqualTo(3);
  }

  @Test
  void anAdmissionInTheNextPeriodCountsInFullBesideTheWeighedPreviousOne() {
    recent.add(request(4), T0);
    recent.add(request(1), T0 + PERIOD + PERIOD / 2);

    assertThat(count(T0 + PERIOD + PERIOD / 2)).isEqualTo(3);
  }

  @Test
  void everythingIsForgottenTwoPeriodsAfterTheLastAdmission() {
    recent.add(request(4), T0);

    assertThat(count(T0 + 2 * PERIOD - 1)).isEqualTo(1);
    assertThat(count(T0 + 2 * PERIOD)).isZero();
  }

  @Test
  void aRefundTakesItsCostBackButNeverBelowZero() {
    recent.add(request(3), T0);

    recent.subtract(request(2), T0 + 1);
    assertThat(count(T0 + 1)).isEqualTo(1);

    recent.subtract(request(5), T0 + 2);
    assertThat(count(T0 + 2)).isZero();
  }

  @Test
  void aRefundRollsTheWindowsFirst() {
    recent.add(request(4), T0);

    recent.subtract(request(1), T0 + PERIOD);

    assertThat(count(T0 + PERIOD)).isEqualTo(4);
  }

  @Test
  void aRefundOfSomethingNeverAdmittedChangesNothing() {
    recent.subtract(request(1), T0);

    assertThat(recent.isEmpty()).isTrue();
  }

  @Test
  void theChargeIsOneRequestPerRuleAndActorWithTheRecentCount() {
    recent.add(request(2), T0);
    recent.add(request(1), T0 + 1);

    assertThat(recent.charges(T0 + 1, false)).containsExactly(request(3));
  }

  @Test
  void theChargeNeverExceedsTheCapacityOfTheLimit() {
    recent.add(request(5), T0);
    recent.add(request(5), T0);

    assertThat(recent.charges(T0, false)).containsExactly(request(8));
  }

  @Test
  void aChargeWithoutClearingIsChargedAgainNextTime() {
    recent.add(request(2), T0);

    recent.charges(T0, false);

    assertThat(recent.charges(T0, false)).containsExactly(request(2));
  }

  @Test
  void aClearedChargeIsNotChargedAgainAndThePairIsDropped() {
    recent.add(request(2), T0);

    assertThat(recent.charges(T0, true)).containsExactly(request(2));
    assertThat(recent.charges(T0, true)).isEmpty();
    assertThat(recent.isEmpty()).isTrue();
  }

  @Test
  void aFullMapMakesRoomForANewActorByDroppingThePairsIdleForAPeriod() {
    for (int i = 0; i < Recent.MAX_KEYS; i++) {
      recent.add(new RateRequest("rule", "old-" + i, Algorithm.TOKEN_BUCKET, limit, 1), T0);
    }
    recent.add(new RateRequest("rule", "busy", Algorithm.TOKEN_BUCKET, limit, 1), T0);
    assertThat(recent.keys()).as("full: a new pair is not counted").hasSize(Recent.MAX_KEYS);

    long later = T0 + 2 * PERIOD; // every old pair's last period is empty now
    recent.add(request(3), later);

    assertThat(count(later)).isEqualTo(3);
    assertThat(recent.keys()).containsExactly(Recent.Key.of(request(1)));
  }

  @Test
  void whileEveryTrackedPairIsRecentANewOneIsNotCountedAndTheMapIsWalkedOnceASecond() {
    for (int i = 0; i < Recent.MAX_KEYS; i++) {
      recent.add(new RateRequest("rule", "old-" + i, Algorithm.TOKEN_BUCKET, limit, 1), T0);
    }

    recent.add(request(1), T0 + 1);
    assertThat(count(T0 + 1)).isZero();

    // the old pairs are idle by now, but the last walk (at T0, when the map first reached the
    // size of a walk) was less than a second ago
    long idle = T0 + 2 * PERIOD;
    recent.add(
        new RateRequest("rule", "late", Algorithm.TOKEN_BUCKET, limit, 1), T0 + 1 + 999_999_999L);
    assertThat(recent.keys()).hasSize(Recent.MAX_KEYS);
    recent.add(request(2), idle);
    assertThat(count(idle)).isEqualTo(2);
  }

  @Test
  void actorsThatComeAndGoAreForgottenLongBeforeTheMapIsFull() {
    int perPeriod = 1_000;
    int periods = 150; // 150,000 actors in all, more than the map holds
    long now = T0 - 150 * PERIOD;
    int largest = 0;
    for (int p = 0; p < periods; p++, now += PERIOD) {
      for (int i = 0; i < perPeriod; i++) {
        recent.add(
            new RateRequest("rule", "p" + p + "-" + i, Algorithm.TOKEN_BUCKET, limit, 2), now);
      }
      largest = Math.max(largest, recent.keys().size());
    }
    long last = now - PERIOD;

    // an actor's pair is idle two periods after its admission; the walks come once the map has
    // doubled since the last one, so it holds about four periods of actors at most
    assertThat(largest).isLessThanOrEqualTo(4 * perPeriod + 1);
    for (int i = 0; i < perPeriod; i++) {
      Recent.Key key = Recent.Key.of(
          new RateRequest("rule", "p" + (periods - 1) + "-" + i, Algorithm.TOKEN_BUCKET, limit, 1));
      assertThat(recent.count(key, last)).as("the last period's actor %d", i).isEqualTo(2);
    }
    assertThat(recent.charges(last, false))
        .as("every pair still remembered is owed")
        .hasSizeBetween(perPeriod, 2 * perPeriod);
  }

  @Test
  void aWalkThatDropsNothingPutsTheNextAtTwiceTheSizeItLeft() {
    for (int i = 0; i <= Recent.FIRST_SWEEP_SIZE; i++) {
      recent.add(new RateRequest("rule", "a" + i, Algorithm.TOKEN_BUCKET, limit, 1), T0);
    }
    assertThat(recent.keys()).hasSize(Recent.FIRST_SWEEP_SIZE + 1);
    assertThat(recent.sweepAtSize()).isEqualTo(2 * Recent.FIRST_SWEEP_SIZE);

    // all of them idle, a second later than the walk: the next walk waits for the doubled size
    long idle = T0 + 2 * PERIOD;
    recent.add(request(1), idle);
    assertThat(recent.keys()).hasSize(Recent.FIRST_SWEEP_SIZE + 2);
    for (int i = 0; i < Recent.FIRST_SWEEP_SIZE - 1; i++) {
      recent.add(new RateRequest("rule", "b" + i, Algorithm.TOKEN_BUCKET, limit, 1), idle);
    }
    assertThat(recent.keys())
        .as("the walk at twice the size dropped the idle first thousand")
        .hasSize(Recent.FIRST_SWEEP_SIZE);
    assertThat(count(idle)).isEqualTo(1);
  }

  @Test
  void aWalkIsDueAgainOneSecondAfterTheLast() {
    RateLimit brief = RateLimit.of(5, Duration.ofMillis(100)); // idle 200 ms after an admission
    for (int i = 0; i < 2 * Recent.FIRST_SWEEP_SIZE; i++) {
      recent.add(new RateRequest("rule", "a" + i, Algorithm.TOKEN_BUCKET, brief, 1), T0);
    }
    assertThat(recent.keys()).hasSize(2 * Recent.FIRST_SWEEP_SIZE); // one walk, at T0, kept all

    long oneSecondLater = T0 + Recent.SWEEP_EVERY_NANOS;
    recent.add(new RateRequest("rule", "late", Algorithm.TOKEN_BUCKET, brief, 1), oneSecondLater);

    assertThat(recent.keys())
        .extracting(Recent.Key::toString)
        .singleElement()
        .asString()
        .contains("actor=late");
  }

  @Test
  void anIdlePairDroppedByTheChargesStartsAFreshWindowOnItsNextAdmission() {
    recent.add(request(2), T0);
    assertThat(recent.charges(T0 + 3 * PERIOD, false)).isEmpty();
    assertThat(recent.isEmpty()).isTrue();

    recent.add(request(1), T0 + 3 * PERIOD);

    assertThat(count(T0 + 3 * PERIOD)).isEqualTo(1);
  }

  @Test
  void aPairIsItsRuleActorAlgorithmAndLimitWhateverTheRequestsCost() {
    Recent.Key key = Recent.Key.of(request(1));
    // equal strings that are other objects, and another cost: the same pair
    Recent.Key same = Recent.Key.of(new RateRequest(
        new String("rule".toCharArray()),
        new String("actor".toCharArray()),
        Algorithm.TOKEN_BUCKET,
        RateLimit.of(5, Duration.ofSeconds(10)).withBurst(8),
        7));

    assertThat(same).isEqualTo(key).hasSameHashCodeAs(key);
    assertThat(Recent.Key.of(new RateRequest("other", "actor", Algorithm.TOKEN_BUCKET, limit, 1)))
        .isNotEqualTo(key);
    assertThat(Recent.Key.of(new RateRequest("rule", "other", Algorithm.TOKEN_BUCKET, limit, 1)))
        .isNotEqualTo(key);
    assertThat(Recent.Key.of(new RateRequest("rule", "actor", Algorithm.GCRA, limit, 1)))
        .isNotEqualTo(key);
    assertThat(Recent.Key.of(
            new RateRequest("rule", "actor", Algorithm.TOKEN_BUCKET, limit.withBurst(9), 1)))
        .isNotEqualTo(key);

    recent.add(same, 7, T0);
    recent.add(request(2), T0);
    assertThat(count(T0)).isEqualTo(9);
    assertThat(recent.keys()).containsExactly(key);
  }
}
