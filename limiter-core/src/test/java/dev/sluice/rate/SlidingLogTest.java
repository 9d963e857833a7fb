package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The sliding log's figures, exactly: 10 per second, each permit counted for a second. */
class SlidingLogTest {

  private static final long MS = Duration.ofMillis(1).toNanos();
  private static final RateLimit TEN_PER_SECOND = RateLimit.of(10, Duration.ofSeconds(1));

  private final VirtualTime time = new VirtualTime();
  private final RateLimiter limiter = RateLimiter.of(Algorithm.SLIDING_LOG, TEN_PER_SECOND, time);

  /** 3 permits at 0 ms and 7 at 200 ms: full until the first 3 leave the window at 1,000 ms. */
  private void fillInTwoEntries() {
    limiter.tryAcquire("k", 3);
    time.advanceNanos(200 * MS);
    limiter.tryAcquire("k", 7);
    time.advanceNanos(300 * MS);
  }

  @Test
  void aRejectionWaitsForTheOldestEntryToLeaveTheWindow() {
    fillInTwoEntries();

    RateDecision rejected = limiter.tryAcquire("k", 3);

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(500 * MS);
    assertThat(rejected.resetAfterNanos()).isEqualTo(700 * MS);
  }

  @Test
  void aRejectionNeedingMoreThanTheOldestEntryFreesWaitsForTheNextToo() {
    fillInTwoEntries();

    RateDecision rejected = limiter.tryAcquire("k", 4);

    assertThat(rejected.retryAfterNanos()).isEqualTo(700 * MS);
  }

  @Test
  void aCostOfTheWholeLimitWaitsUntilEveryEntryLeft() {
    limiter.tryAcquire("k");
    time.advanceNanos(300 * MS);

    RateDecision rejected = limiter.tryAcquire("k", 10);

    assertThat(rejected.allowed()).isFalse();
    assertThat(rejected.retryAfterNanos()).isEqualTo(700 * MS);
  }

  @Test
  void aCostAboveTheLimitNeverFits() {
    assertThat(limiter.tryAcquire("k", 11).retryAfterNanos()).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void theLargestLimitALogCanHoldIsAccepted() {
    long largest = Integer.MAX_VALUE - 8;
    SlidingLog log = new SlidingLog(RateLimit.of(largest, Duration.ofSeconds(1)));
    long now = time.nanoTime();

    assertThat(log.tryAcquire(log.newState(now), now, largest).remaining()).isZero();
  }

  @Test
  void aLogIsFullWhenItsNewestEntryLeavesTheWindow() {
    SlidingLog log = new SlidingLog(TEN_PER_SECOND);
    long now = time.nanoTime();
    SlidingLog.Log entries = log.newState(now);
    assertThat(log.nanosUntilFull(entries, now)).isEqualTo(RateAlgorithm.ALWAYS_FULL);
    log.tryAcquire(entries, now, 1);
    log.tryAcquire(entries, now + 200 * MS, 1);

    assertThat(log.nanosUntilFull(entries, now + 500 * MS)).isEqualTo(700 * MS);
  }

  @Test
  void aKeyIsKeptForItsIdleExpiryAfterItIsFull() {
    RateLimiter patient = RateLimiter.builder(Algorithm.SLIDING_LOG, TEN_PER_SECOND)
        .clock(time)
        .expireAfterIdle(Duration.ofMinutes(5))
        .build();
    patient.tryAcquire("k");

    time.advance(Duration.ofMinutes(4));
    assertThat(patient.trackedKeys()).isEqualTo(1);
    time.advance(Duration.ofMinutes(2));

    assertThat(patient.trackedKeys()).isZero();
  }
}
