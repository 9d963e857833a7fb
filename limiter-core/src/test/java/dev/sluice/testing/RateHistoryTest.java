package dev.sluice.testing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.rate.Algorithm;
import dev.sluice.rate.RateLimit;
import dev.sluice.rate.RateLimiter;
import dev.sluice.testing.RateHistory.Allowance;
import dev.sluice.testing.RateHistory.Decision;
import dev.sluice.testing.RateHistory.Report;
import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class RateHistoryTest {

  private static final long MS = 1_000_000L;
  private static final Duration SECOND = Duration.ofSeconds(1);

  private static Decision admitted(long atMs) {
    return new Decision("a", atMs * MS, atMs * MS, true, 1);
  }

  private static Decision refused(long atMs) {
    return new Decision("a", atMs * MS, atMs * MS, false, 1);
  }

  @Test
  void aFullBucketThenTheRateIsWithinTheBound() {
    // 10 per second, burst 10: ten at once, then one every 100 ms
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      history.add(admitted(0));
    }
    for (int i = 1; i <= 20; i++) {
      history.add(admitted(i * 100L));
    }

    Report report = RateHistory.checkBucket(history, 10, SECOND, 10, List.of(), 0);

    assertThat(report.withinBound()).as(report.summary()).isTrue();
    assertThat(report.admitted()).isEqualTo(30);
    assertThat(report.decisions()).isEqualTo(30);
  }

  @Test
  void oneAdmissionTooEarlyIsFoundWithItsInterval() {
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      history.add(admitted(0));
    }
    history.add(admitted(50)); // half a permit refilled by then

    Report report = RateHistory.checkBucket(history, 10, SECOND, 10, List.of(), 0);

    assertThat(report.overAdmissions()).singleElement().satisfies(o -> {
      assertThat(o.admitted()).isEqualTo(11);
      assertThat(o.fromNanos()).isZero();
      assertThat(o.toNanos()).isEqualTo(50 * MS);
      assertThat(o.bound()).isCloseTo(10.5, org.assertj.core.data.Offset.offset(1e-9));
      assertThat(o.excess()).isCloseTo(0.5, org.assertj.core.data.Offset.offset(1e-9));
    });
    assertThat(report.summary()).contains("11 admitted in 0.05 s where 10.5 were allowed");
  }

  @Test
  void anAllowanceCoversIntervalsThatOverlapItOnly() {
    // 1 per second, burst 1; a fault from 1 s to 2 s allows 2 more
    List<Decision> history =
        List.of(admitted(0), admitted(1_100), admitted(1_200), admitted(1_300));
    Allowance fault = new Allowance("cut", 1_000 * MS, 2_000 * MS, 2);

    assertThat(RateHistory.checkBucket(history, 1, SECOND, 1, List.of(fault), 0).withinBound())
        .isTrue();
    assertThat(RateHistory.checkBucket(history, 1, SECOND, 1, List.of(), 0).overAdmissions())
        .singleElement()
        .satisfies(o -> assertThat(o.faults()).isEmpty());

    // the same burst after the fault has ended is not covered
    List<Decision> after = List.of(admitted(0), admitted(2_100), admitted(2_200), admitted(2_300));
    assertThat(RateHistory.checkBucket(after, 1, SECOND, 1, List.of(fault), 0).overAdmissions())
        .singleElement()
        .satisfies(o -> assertThat(o.admitted()).isEqualTo(3));
  }

  @Test
  void aSlowAnswerWidensTheIntervalSoAnHonestHistoryPasses() {
    // asked 10 at 0 ms; the eleventh asked at 50 ms but answered at 120 ms: it may have been
    // decided after 100 ms, when a permit was back
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      history.add(admitted(0));
    }
    history.add(new Decision("a", 50 * MS, 120 * MS, true, 1));

    assertThat(RateHistory.checkBucket(history, 10, SECOND, 10, List.of(), 0).withinBound())
        .isTrue();
  }

  @Test
  void actorsAreCheckedApart() {
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      history.add(new Decision("x", 0, 0, true, 1));
      history.add(new Decision("y", 0, 0, true, 1));
    }
    history.add(new Decision("y", MS, MS, true, 1));

    Report report = RateHistory.checkBucket(history, 10, SECOND, 10, List.of(), 0);

    assertThat(report.overAdmissions())
        .singleElement()
        .satisfies(o -> assertThat(o.actor()).isEqualTo("y"));
  }

  @Test
  void aRefusalWithRoomIsOwedAndOneWithoutIsNot() {
    // 10 per second, burst 10: five admitted, then a refusal is owed; after ten, it is not
    List<Decision> owed = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      owed.add(admitted(0));
    }
    owed.add(refused(1));
    assertThat(RateHistory.checkBucket(owed, 10, SECOND, 10, List.of(), 0).underAdmissions())
        .singleElement()
        .satisfies(u ->
            assertThat(u.headroom()).isCloseTo(4.01, org.assertj.core.data.Offset.offset(1e-9)));

    List<Decision> due = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      due.add(admitted(0));
    }
    due.add(refused(50));
    assertThat(RateHistory.checkBucket(due, 10, SECOND, 10, List.of(), 0).underAdmissions())
        .isEmpty();

    // a refusal during a fault's allowance is not owed: a node on its share refuses more
    Allowance fault = new Allowance("cut", 0, 10 * MS, 5);
    assertThat(RateHistory.checkBucket(owed, 10, SECOND, 10, List.of(fault), 0).underAdmissions())
        .isEmpty();
  }

  @Test
  @Tag("property")
  void theLinearCheckAgreesWithEveryPairOnRandomHistories() {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    for (int round = 0; round < 300; round++) {
      long permits = 1L + random.nextInt(5);
      long burst = 1L + random.nextInt(5);
      List<Allowance> faults = new ArrayList<>();
      if (random.nextBoolean()) {
        long from = random.nextInt(2_000) * MS;
        faults.add(new Allowance("f", from, from + random.nextInt(1_000) * MS, random.nextInt(3)));
      }
      List<Decision> history = new ArrayList<>();
      int n = 1 + random.nextInt(30);
      for (int i = 0; i < n; i++) {
        long at = random.nextInt(3_000) * MS;
        history.add(new Decision(
            "a", at, at + random.nextInt(20) * MS, random.nextInt(4) > 0, 1 + random.nextInt(2)));
      }

      boolean linear =
          RateHistory.checkBucket(history, permits, SECOND, burst, faults, 0).withinBound();

      assertThat(linear)
          .as("seed %d round %d: %s", seed, round, history)
          .isEqualTo(bruteForceWithin(history, permits / 1e9, burst, faults));
    }
  }

  /** Every pair of admissions (in asked order), the interval measured as the linear check does. */
  private static boolean bruteForceWithin(
      List<Decision> history, double rate, long burst, List<Allowance> faults) {
    List<Decision> admitted = history.stream()
        .filter(Decision::admitted)
        .sorted(java.util.Comparator.comparingLong(Decision::askedNanos)
            .thenComparingLong(Decision::answeredNanos))
        .toList();
    for (int i = 0; i < admitted.size(); i++) {
      for (int j = i; j < admitted.size(); j++) {
        long held = 0;
        long latest = Long.MIN_VALUE;
        for (int k = 0; k <= j; k++) {
          latest = Math.max(latest, admitted.get(k).answeredNanos());
          if (k >= i) {
            held += admitted.get(k).cost();
          }
        }
        long from = admitted.get(i).askedNanos();
        long extra = 0;
        for (Allowance f : faults) {
          if (from < f.toNanos() && latest >= f.fromNanos()) {
            extra += f.permits();
          }
        }
        if (held > burst + extra + rate * (latest - from) + 1e-9) {
          return false;
        }
      }
    }
    return true;
  }

  /**
   * Sluice's own bucket algorithms against the model, on a virtual clock: random arrivals of
   * random costs on a few keys; every admission within the bound, and no refusal owed by more
   * than the algorithm's rounding (a permit).
   */
  @ParameterizedTest
  @Tag("property")
  @EnumSource(
      value = Algorithm.class,
      names = {"TOKEN_BUCKET", "GCRA", "LEAKY_BUCKET"})
  void sluicesBucketsHoldTheBoundAndRefuseOnlyWhenDue(Algorithm algorithm) {
    long seed = Seeds.seed();
    Random random = new Random(seed);
    VirtualTime time = new VirtualTime();
    RateLimit limit = new RateLimit(20, Duration.ofSeconds(2), 20);
    RateLimiter limiter = RateLimiter.of(algorithm, limit, time);
    long start = time.nanoTime(); // virtual time may start anywhere and wrap: record from here
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 5_000; i++) {
      time.advanceNanos(random.nextInt(60) * MS);
      String key = "k" + random.nextInt(3);
      long cost = 1L + random.nextInt(2);
      long now = time.nanoTime() - start;
      boolean allowed = limiter.tryAcquire(key, cost).allowed();
      history.add(new Decision(key, now, now, allowed, cost));
    }

    Report report = RateHistory.checkBucket(
        history, limit.limit(), limit.period(), limit.burst(), List.of(), 1.0);

    assertThat(report.overAdmissions())
        .as("seed %d: %s", seed, report.summary())
        .isEmpty();
    assertThat(report.underAdmissions())
        .as("seed %d: %s", seed, report.summary())
        .isEmpty();
    assertThat(history.stream().filter(d -> !d.admitted()).count())
        .as("the arrivals were above the rate, so some were refused")
        .isPositive();
  }

  @Test
  void aFixedWindowCounterBreaksTheBucketBoundAtItsEdges() {
    // the checker tells a rule that is not a bucket: 20 per 2 s by fixed windows (aligned to the
    // limiter's creation) admits 20 at the end of one window and 20 at the start of the next
    VirtualTime time = new VirtualTime();
    RateLimiter limiter =
        RateLimiter.of(Algorithm.FIXED_WINDOW, RateLimit.of(20, Duration.ofSeconds(2)), time);
    long start = time.nanoTime();
    time.advance(Duration.ofMillis(1_800));
    List<Decision> history = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      time.advanceNanos(10 * MS);
      long now = time.nanoTime() - start;
      history.add(new Decision("k", now, now, limiter.tryAcquire("k", 1).allowed(), 1));
    }

    Report report = RateHistory.checkBucket(history, 20, Duration.ofSeconds(2), 20, List.of(), 1);

    // 19 requests fall in the first window's last 190 ms, 20 in the next window's first 200 ms
    assertThat(report.overAdmissions())
        .singleElement()
        .satisfies(o -> assertThat(o.admitted()).isEqualTo(39));
  }
}
