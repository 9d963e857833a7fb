package dev.sluice.rate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.time.VirtualTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * When the per-key store drops states, on 10 per second sliding windows (full again 2 s after the
 * last request) kept 3 s when idle: a sweep at most every 3 s, a state dropped once it has been
 * full for a second.
 */
class KeyedStatesMaintenanceTest {

  private static final long SECOND = Duration.ofSeconds(1).toNanos();
  private static final long IDLE = 3 * SECOND;

  /** A random start, as VirtualTime's: raw nano values compared instead of differences fail. */
  private final long t0 = new VirtualTime().nanoTime();

  private final SlidingWindowCounter windows =
      new SlidingWindowCounter(RateLimit.of(10, Duration.ofSeconds(1)), t0);

  private KeyedStates<SlidingWindowCounter.Counts> states(long maxKeys) {
    return new KeyedStates<>(windows, maxKeys, IDLE, t0);
  }

  /** A state that took a permit at {@code now}: not full for two seconds. */
  private SlidingWindowCounter.Counts busy(
      KeyedStates<SlidingWindowCounter.Counts> states, String key, long now) {
    SlidingWindowCounter.Counts counts = states.getOrCreate(key, now);
    assertThat(windows.tryAcquire(counts, now, 1).allowed()).isTrue();
    return counts;
  }

  @Test
  void aSweepRunsOnceItsIntervalHasPassedToTheNanosecond() {
    KeyedStates<SlidingWindowCounter.Counts> states = states(100);
    SlidingWindowCounter.Counts idle = states.getOrCreate("idle", t0); // never used: full

    states.maintain(t0 + IDLE - 1);
    assertThat(states.get("idle")).as("no sweep due yet").isSameAs(idle);
    states.maintain(t0 + IDLE);

    assertThat(states.get("idle")).isNull();
    assertThat(idle.live()).as("retired, so a decision on it is made again").isFalse();
  }

  @Test
  void anEvictionDropsEveryFullStateBeforeAnyThatIsNot() {
    KeyedStates<SlidingWindowCounter.Counts> states = states(16);
    List<String> full = new ArrayList<>();
    List<String> used = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      full.add("full-" + i);
      states.getOrCreate("full-" + i, t0);
      used.add("used-" + i);
      busy(states, "used-" + i, t0);
    }

    states.getOrCreate("newcomer", t0 + 1); // no slot left: an eviction

    assertThat(full).allSatisfy(key -> assertThat(states.get(key)).as(key).isNull());
    assertThat(used).allSatisfy(key -> assertThat(states.get(key)).as(key).isNotNull());
    assertThat(states.get("newcomer")).isNotNull();
  }

  @Test
  void aForgottenStateFreesItsSlotOnce() {
    KeyedStates<SlidingWindowCounter.Counts> states = states(2);
    SlidingWindowCounter.Counts a = busy(states, "a", t0);
    SlidingWindowCounter.Counts b = busy(states, "b", t0);

    states.forget("a", a);
    busy(states, "c", t0 + 1); // the slot "a" left: no eviction

    assertThat(states.get("a")).isNull();
    assertThat(states.get("b")).isSameAs(b);
    states.forget("a", a); // gone already: frees nothing more
    busy(states, "d", t0 + 2); // so one must go now
    assertThat(states.size(t0 + 2)).isEqualTo(2);
  }

  @Test
  void aSweepAfterASilenceTooLongToJudgeRetiresEveryState() {
    KeyedStates<SlidingWindowCounter.Counts> states = states(100);
    SlidingWindowCounter.Counts used = busy(states, "used", t0);

    assertThat(states.size(t0 + IDLE + 2 * IDLE)).isZero();

    assertThat(used.live()).isFalse();
  }

  @Test
  void sweepsAndEvictionsGiveTheirLockBack() throws InterruptedException {
    KeyedStates<SlidingWindowCounter.Counts> states = states(2);
    busy(states, "a", t0);
    busy(states, "b", t0);
    busy(states, "c", t0 + 1); // an eviction
    assertThat(states.size(t0 + 1)).isEqualTo(2); // a sweep on demand
    long swept = t0 + 1 + IDLE;
    states.maintain(swept); // a sweep that falls due
    states.getOrCreate("late", swept); // never used: full at once

    // the lock is reentrant, so only another thread finds it still held; a sweep that falls due
    // there only tries the lock (the next caller runs it), so a lock left held skips the sweep
    // instead of blocking the test
    Thread other = new Thread(() -> states.maintain(swept + IDLE));
    other.start();
    other.join(Duration.ofSeconds(10).toMillis());

    assertThat(other.isAlive()).isFalse();
    assertThat(states.get("late")).as("swept on the other thread").isNull();
  }

  @Test
  void aStateFullForLessThanTheGraceIsKept() {
    KeyedStates<SlidingWindowCounter.Counts> states = states(100);
    SlidingWindowCounter.Counts used = busy(states, "used", t0);

    assertThat(states.size(t0 + 2 * SECOND + SECOND / 2)).isEqualTo(1); // full for half a second
    assertThat(used.live()).isTrue();
    assertThat(states.size(t0 + 3 * SECOND)).isZero(); // full for the whole second
  }
}
