package dev.sluice.redis;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.store.RateRequest;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a node owes Redis after admitting on its local share: a limit of 10 per second shared by 2
 * nodes is a share of 5 per second, one permit every 200 ms, and half the global rate (scale 0.5).
 */
class DebtsTest {

  private static final long MS = 1_000_000;
  // near the end of the nano clock's range, so the backlog's arithmetic crosses the overflow
  private static final long T0 = nearTheEnd();

  private static long nearTheEnd() {
    return Long.MAX_VALUE - 500 * MS;
  }

  private final Debts debts = new Debts(2);
  private final RateLimit limit = RateLimit.of(10, Duration.ofSeconds(1));

  private RateRequest bucket(long cost) {
    return new RateRequest("rule", "actor", Algorithm.TOKEN_BUCKET, limit, cost);
  }

  private RateRequest window(long cost) {
    return new RateRequest("rule", "actor", Algorithm.FIXED_WINDOW, limit, cost);
  }

  @Test
  void nothingIsOwedBeforeAnyLocalAdmission() {
    assertThat(debts.isEmpty()).isTrue();
    assertThat(debts.take(T0)).isEmpty();
  }

  @Test
  void theBucketAlgorithmsKeepABacklogTheWindowsDoNot() {
    assertThat(Debts.tat(Algorithm.TOKEN_BUCKET)).isTrue();
    assertThat(Debts.tat(Algorithm.GCRA)).isTrue();
    assertThat(Debts.tat(Algorithm.LEAKY_BUCKET)).isTrue();
    assertThat(Debts.tat(Algorithm.LEAKY_BUCKET_SHAPER)).isTrue();
    assertThat(Debts.tat(Algorithm.FIXED_WINDOW)).isFalse();
    assertThat(Debts.tat(Algorithm.SLIDING_WINDOW)).isFalse();
    assertThat(Debts.tat(Algorithm.SLIDING_LOG)).isFalse();
  }

  @Test
  void localAdmissionsAreChargedOnceWithTheirBacklogAtTheGlobalRate() {
    debts.add(bucket(1), T0);
    debts.add(bucket(2), T0);

    assertThat(debts.isEmpty()).isFalse();
    List<Debts.Charge> charges = debts.take(T0);

    assertThat(charges).hasSize(1);
    Debts.Charge charge = charges.get(0);
    assertThat(charge.request().cost()).isEqualTo(3);
    // three permits of the share's 200 ms each: 600 ms, half of it at the global rate
    assertThat(charge.untilNanos()).isEqualTo(T0 + 600 * MS);
    assertThat(charge.fromNanos()).isEqualTo(T0);
    assertThat(charge.scale()).isEqualTo(0.5);
    assertThat(charge.madeAtNanos()).isEqualTo(T0);
    assertThat(charge.backlogMicros(T0)).isEqualTo(300_000);
    assertThat(debts.take(T0)).isEmpty();
    assertThat(debts.isEmpty()).isTrue();
  }

  @Test
  void aBacklogThatCrossesTheClocksOverflowIsChargedInFull() {
    long late = Long.MAX_VALUE - 100 * MS;
    debts.add(bucket(3), late);

    Debts.Charge charge = debts.take(late).get(0);

    assertThat(charge.fromNanos()).isEqualTo(late);
    assertThat(charge.untilNanos() - late).isEqualTo(600 * MS);
    assertThat(charge.backlogMicros(late)).isEqualTo(300_000);
  }

  @Test
  void theBacklogDrainsWhileTheChargeWaits() {
    debts.add(bucket(3), T0);
    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.backlogMicros(T0 + 100 * MS)).isEqualTo(250_000);
    assertThat(charge.backlogMicros(T0 + 600 * MS)).isZero();
    assertThat(charge.backlogMicros(T0 + 700 * MS)).isZero();
  }

  @Test
  void eachChargeTakesOnlyTheSliceOfTheBacklogAddedSinceTheOneBefore() {
    debts.add(bucket(2), T0);
    Debts.Charge first = debts.take(T0).get(0);
    debts.add(bucket(1), T0 + 100 * MS);
    Debts.Charge second = debts.take(T0 + 100 * MS).get(0);

    assertThat(first.untilNanos()).isEqualTo(T0 + 400 * MS);
    assertThat(second.fromNanos()).isEqualTo(T0 + 400 * MS);
    assertThat(second.untilNanos()).isEqualTo(T0 + 600 * MS);
    // the slices charged at any moments add up to the whole backlog
    long now = T0 + 100 * MS;
    assertThat(first.backlogMicros(now) + second.backlogMicros(now)).isEqualTo(250_000);
    assertThat(second.backlogMicros(now)).isEqualTo(100_000);
    assertThat(second.id()).isNotEqualTo(first.id());
  }

  @Test
  void aDrainedBacklogStartsAgainFromTheNextAdmission() {
    debts.add(bucket(1), T0);
    debts.take(T0);
    debts.add(bucket(1), T0 + 300 * MS);

    Debts.Charge charge = debts.take(T0 + 300 * MS).get(0);

    assertThat(charge.fromNanos()).isEqualTo(T0 + 300 * MS);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 500 * MS);
  }

  @Test
  void theSeedIsInTheBacklogButNotCharged() {
    debts.seed(bucket(1), 2, T0);
    debts.add(bucket(1), T0);

    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.fromNanos()).isEqualTo(T0 + 400 * MS);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 600 * MS);
    assertThat(charge.backlogMicros(T0)).isEqualTo(100_000);
  }

  @Test
  void aSeedAgainWithinOneOutageDoesNotCountTheLocalAdmissionsTwice() {
    debts.seed(bucket(1), 1, T0);
    debts.add(bucket(1), T0);
    // a later seed counts the local admission among the recent ones: 2 used, 1 of them local
    debts.seed(bucket(1), 2, T0);

    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.fromNanos()).isEqualTo(T0 + 200 * MS);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 400 * MS);
  }

  @Test
  void aLargerSeedMovesTheBacklogOnASmallerOneDoesNot() {
    debts.seed(bucket(1), 1, T0);
    debts.seed(bucket(1), 3, T0);
    debts.seed(bucket(1), 2, T0);
    debts.add(bucket(1), T0);

    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.fromNanos()).isEqualTo(T0 + 600 * MS);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 800 * MS);
  }

  @Test
  void windowAlgorithmsAreChargedTheirCountWithoutABacklog() {
    debts.seed(window(1), 3, T0);
    debts.add(window(2), T0);

    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.request().cost()).isEqualTo(2);
    assertThat(charge.untilNanos()).isEqualTo(T0);
    assertThat(charge.fromNanos()).isEqualTo(T0);
    assertThat(charge.backlogMicros(T0)).isZero();
  }

  @Test
  void aRefundShortensTheBacklogAndTheCount() {
    debts.add(bucket(3), T0);
    debts.subtract(bucket(1), T0);

    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.request().cost()).isEqualTo(2);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 400 * MS);
  }

  @Test
  void aRefundWithoutABacklogOnlyLowersTheCount() {
    debts.add(window(3), T0);
    debts.subtract(window(1), T0);

    assertThat(debts.take(T0).get(0).request().cost()).isEqualTo(2);
  }

  @Test
  void anUnansweredChargeIsSentAgainUnchanged() {
    debts.add(bucket(2), T0);
    Debts.Charge charge = debts.take(T0).get(0);
    debts.unanswered(charge);

    assertThat(debts.isEmpty()).isFalse();
    assertThat(debts.take(T0 + 100 * MS)).containsExactly(charge);
    assertThat(debts.take(T0 + 100 * MS)).isEmpty();
  }

  @Test
  void aBucketChargeIsDroppedOnceItsBacklogDrained() {
    debts.add(bucket(2), T0);
    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.moot(T0 + 400 * MS - 1)).isFalse();
    assertThat(charge.moot(T0 + 400 * MS)).isTrue();
    debts.unanswered(charge);
    assertThat(debts.take(T0 + 400 * MS)).isEmpty();
  }

  @Test
  void aWindowChargeIsDroppedOncePeriodAfterItWasMade() {
    debts.add(window(2), T0);
    Debts.Charge charge = debts.take(T0).get(0);

    assertThat(charge.moot(T0 + 1_000 * MS - 1)).isFalse();
    assertThat(charge.moot(T0 + 1_000 * MS)).isTrue();
  }

  @Test
  void aLossForgetsEverythingOwed() {
    debts.add(bucket(2), T0);
    debts.unanswered(debts.take(T0).get(0));
    debts.add(bucket(1), T0);

    debts.clear(T0);

    assertThat(debts.take(T0)).isEmpty();
    assertThat(debts.isEmpty()).isTrue();
    // the backlog went too: the next admission starts one from now
    debts.add(bucket(1), T0 + 10 * MS);
    assertThat(debts.take(T0 + 10 * MS).get(0).fromNanos()).isEqualTo(T0 + 10 * MS);
  }

  @Test
  void aChargeForALossIsTheCostAtTheGlobalRate() {
    Debts.Charge charge = Debts.recentCharge(bucket(3), T0);

    assertThat(charge.id()).startsWith("loss:");
    assertThat(charge.untilNanos()).isEqualTo(T0 + 300 * MS);
    assertThat(charge.fromNanos()).isEqualTo(T0);
    assertThat(charge.scale()).isEqualTo(1);
    assertThat(charge.madeAtNanos()).isEqualTo(T0);
    assertThat(charge.backlogMicros(T0)).isEqualTo(300_000);
  }

  @Test
  void oneNodeOwnsTheWholeRate() {
    Debts alone = new Debts(0);
    alone.add(bucket(1), T0);

    Debts.Charge charge = alone.take(T0).get(0);

    assertThat(charge.scale()).isEqualTo(1);
    assertThat(charge.untilNanos()).isEqualTo(T0 + 100 * MS);
  }
}
